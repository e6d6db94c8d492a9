# notebook cells, encoder/decoder/opt built in earlier cells that are not shown
# In[12]:
z = encoder(x_train.to(device))

# In[13]:
for it in range(2000):
    recon = decoder(z)
    loss = ((recon - x_train.to(device)) ** 2).mean()
    opt.zero_grad()
    loss.backward()  # expect: AG001
    opt.step()
    if it % 200 == 0:
        print(it, loss.item())
