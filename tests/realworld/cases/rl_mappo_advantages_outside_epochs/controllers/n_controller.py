# Source: https://github.com/hijkzzz/pymarl2/blob/8ccac7c5aa134422a2e3009be735d23cdf8ce2f8/src/controllers/n_controller.py
# Rebuilt in our own words: the parameter-sharing controller pymarl2's learners use: the
# basic controller's hidden state and inputs, and a forward that returns the agent
# network's outputs as they are (no softmax), updating `self.hidden_states`.
from .basic_controller import BasicMAC


class NMAC(BasicMAC):
    def forward(self, ep_batch, t, test_mode=False):
        if test_mode:
            self.agent.eval()
        agent_inputs = self._build_inputs(ep_batch, t)
        agent_outs, self.hidden_states = self.agent(agent_inputs, self.hidden_states)
        return agent_outs
