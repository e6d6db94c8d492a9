# Source: https://github.com/hijkzzz/pymarl2/blob/8ccac7c5aa134422a2e3009be735d23cdf8ce2f8/src/controllers/basic_controller.py
# Rebuilt in our own words: the multi-agent controller shared by all agents: it builds
# the agent network (the repository's registry of agents, modules/agents/; its GRU agent
# n_rnn_agent.py is folded in here), keeps the recurrent hidden state on itself between
# time steps (`self.hidden_states`, reset by `init_hidden`), and builds each step's
# inputs from the batch (observation, last action, agent id). (Action selection, which
# the learner does not call, is left out.)
import torch as th
import torch.nn as nn
import torch.nn.functional as F


class NRNNAgent(nn.Module):
    def __init__(self, input_shape, args):
        super().__init__()
        self.args = args
        self.fc1 = nn.Linear(input_shape, args.rnn_hidden_dim)
        self.rnn = nn.GRUCell(args.rnn_hidden_dim, args.rnn_hidden_dim)
        self.fc2 = nn.Linear(args.rnn_hidden_dim, args.n_actions)

    def init_hidden(self):
        return self.fc1.weight.new(1, self.args.rnn_hidden_dim).zero_()

    def forward(self, inputs, hidden_state):
        b, a, e = inputs.size()
        x = F.relu(self.fc1(inputs.view(-1, e)), inplace=True)
        hh = self.rnn(x, hidden_state.reshape(-1, self.args.rnn_hidden_dim))
        return self.fc2(hh).view(b, a, -1), hh.view(b, a, -1)


class BasicMAC:
    def __init__(self, scheme, groups, args):
        self.n_agents = args.n_agents
        self.args = args
        self.agent = NRNNAgent(self._get_input_shape(scheme), args)
        self.agent_output_type = args.agent_output_type
        self.hidden_states = None

    def forward(self, ep_batch, t, test_mode=False):
        agent_inputs = self._build_inputs(ep_batch, t)
        avail_actions = ep_batch["avail_actions"][:, t]
        if test_mode:
            self.agent.eval()
        agent_outs, self.hidden_states = self.agent(agent_inputs, self.hidden_states)
        if self.agent_output_type == "pi_logits":
            agent_outs = agent_outs.reshape(ep_batch.batch_size * self.n_agents, -1)
            agent_outs[avail_actions.reshape(ep_batch.batch_size * self.n_agents, -1) == 0] = -1e5
            agent_outs = th.nn.functional.softmax(agent_outs, dim=-1)
        return agent_outs.view(ep_batch.batch_size, self.n_agents, -1)

    def init_hidden(self, batch_size):
        self.hidden_states = self.agent.init_hidden()
        if self.hidden_states is not None:
            self.hidden_states = self.hidden_states.unsqueeze(0).expand(batch_size, self.n_agents, -1)

    def parameters(self):
        return self.agent.parameters()

    def _build_inputs(self, batch, t):
        bs = batch.batch_size
        inputs = [batch["obs"][:, t]]
        if self.args.obs_last_action:
            if t == 0:
                inputs.append(th.zeros_like(batch["actions_onehot"][:, t]))
            else:
                inputs.append(batch["actions_onehot"][:, t - 1])
        if self.args.obs_agent_id:
            inputs.append(th.eye(self.n_agents, device=batch.device).unsqueeze(0).expand(bs, -1, -1))
        return th.cat([x.reshape(bs, self.n_agents, -1) for x in inputs], dim=-1)

    def _get_input_shape(self, scheme):
        shape = scheme["obs"]["vshape"]
        if self.args.obs_last_action:
            shape += scheme["actions_onehot"]["vshape"][0]
        if self.args.obs_agent_id:
            shape += self.n_agents
        return shape
