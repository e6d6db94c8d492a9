# runnable
# (exported from a notebook)
# In[1]:
import torch
import torch.nn as nn

torch.manual_seed(9)
X = torch.randn(64, 20)

# In[2]: pretrain the autoencoder
encoder = nn.Sequential(nn.Linear(20, 8), nn.Tanh())
decoder = nn.Linear(8, 20)
ae_opt = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-2)
for epoch in range(5):
    codes = encoder(X)
    recon_loss = ((decoder(codes) - X) ** 2).mean()
    ae_opt.zero_grad()
    recon_loss.backward()
    ae_opt.step()

# In[3]: now fine-tune a classifier on the codes
labels = (X[:, 0] > 0).long()
clf = nn.Linear(8, 2)
clf_opt = torch.optim.SGD([*clf.parameters(), *encoder.parameters()], lr=0.1)
for epoch in range(5):
    loss = nn.functional.cross_entropy(clf(codes), labels)
    clf_opt.zero_grad()
    loss.backward()  # expect: AG001
    clf_opt.step()
