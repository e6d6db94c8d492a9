# runnable
# A weight of a torch layer inside a transformers model (BERT's word embeddings, an
# nn.Embedding its BertEmbeddings builds) gives a penalty once, before the loop; every
# step multiplies its loss by it, so the first backward frees the penalty's graph and the
# second reaches it.
import torch
from transformers import BertConfig, BertModel

torch.manual_seed(0)
config = BertConfig(
    vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16
)
bert = BertModel(config)
head = torch.nn.Linear(8, 1)
sgd = torch.optim.SGD(head.parameters(), lr=0.1)
scale = bert.embeddings.word_embeddings.weight.pow(2).mean()
for ids in torch.randint(0, 50, (3, 2, 5)):
    loss = head(bert(ids).last_hidden_state.detach()).mean() * scale
    sgd.zero_grad()
    loss.backward()  # expect: AG001
    sgd.step()
