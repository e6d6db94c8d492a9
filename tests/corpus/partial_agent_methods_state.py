# (snippet) the env and the networks are built elsewhere in the project
class Learner:
    def __init__(self, net, optimizer, env):
        self.net = net
        self.optimizer = optimizer
        self.env = env

    def begin_episode(self):
        self.obs = self.env.reset()
        self.memory = self.net.initial_memory()

    def act(self):
        logits, self.memory = self.net(self.obs, self.memory)
        action = logits.argmax(-1)
        self.obs, reward, done = self.env.step(action)
        return logits, action, reward, done

    def learn(self, logits, action, reward):
        loss = F.cross_entropy(logits, action) * -reward
        self.optimizer.zero_grad()
        loss.backward()  # expect: AG001
        self.optimizer.step()

    def run_episode(self):
        self.begin_episode()
        done = False
        while not done:
            logits, action, reward, done = self.act()
            self.learn(logits, action, reward)
