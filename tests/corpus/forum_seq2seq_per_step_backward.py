# runnable
# seq2seq with teacher forcing; to save memory I call backward() after every
# decoder step instead of once per sequence. Fails at decoder step 2.
import torch
import torch.nn as nn

torch.manual_seed(20)
SRC_V, TGT_V, H = 20, 20, 16

enc_emb, dec_emb = nn.Embedding(SRC_V, H), nn.Embedding(TGT_V, H)
encoder = nn.GRU(H, H)
decoder_cell = nn.GRUCell(H, H)
generator = nn.Linear(H, TGT_V)
params = [p for m in (enc_emb, dec_emb, encoder, decoder_cell, generator) for p in m.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-3)

src = torch.randint(0, SRC_V, (9, 2))
tgt = torch.randint(0, TGT_V, (7, 2))

_, enc_hidden = encoder(enc_emb(src))
dec_h = enc_hidden[0]
optimizer.zero_grad()
for t in range(tgt.size(0) - 1):
    dec_h = decoder_cell(dec_emb(tgt[t]), dec_h)
    step_loss = nn.functional.cross_entropy(generator(dec_h), tgt[t + 1])
    step_loss.backward()  # expect: AG001
optimizer.step()
