# runnable
# The transfer-learning tutorial's `with torch.set_grad_enabled(phase == "train"):`, with
# an RNN state carried across batches inside it: in the training phase autograd is on,
# and the second batch's backward reaches the graph the first one freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(3, 5, batch_first=True)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.01)
hidden = torch.zeros(1, 2, 5)

for phase in ["train", "val"]:
    with torch.set_grad_enabled(phase == "train"):
        for batch in range(3):
            out, hidden = rnn(torch.randn(2, 4, 3), hidden)
            loss = out.pow(2).mean()
            if phase == "train":
                optimizer.zero_grad()
                loss.backward()  # expect: AG001
                optimizer.step()
