# runnable
# A training function defines its model class inside itself and reaches torch through
# aliases (`from torch import nn as tnn`, `import torch as th`): the class is a module
# because its base resolves to torch.nn.Module through the imports, and `tnn.Linear` is a
# torch layer for the same reason. The hidden state carried without detach raises.
import torch as th
from torch import nn as tnn


def main():
    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x).tanh()

    net = Net()
    opt = th.optim.SGD(net.parameters(), lr=0.1)
    h = th.zeros(1, 4)
    for step in range(3):
        h = net(h + 1)
        loss = h.pow(2).sum()
        opt.zero_grad()
        loss.backward()  # expect: AG001
        opt.step()


main()
