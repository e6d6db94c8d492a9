# runnable
# Twin of library_torch_layer_weight_kept_before_loop.py: the penalty from the weight of
# BERT's word embeddings (an nn.Embedding inside the transformers model) is computed in
# each step, so each backward goes through a graph of its own.
import torch
from transformers import BertConfig, BertModel

torch.manual_seed(0)
config = BertConfig(
    vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16
)
bert = BertModel(config)
head = torch.nn.Linear(8, 1)
sgd = torch.optim.SGD(head.parameters(), lr=0.1)
for ids in torch.randint(0, 50, (3, 2, 5)):
    scale = bert.embeddings.word_embeddings.weight.pow(2).mean()
    loss = head(bert(ids).last_hidden_state.detach()).mean() * scale
    sgd.zero_grad()
    loss.backward()
    sgd.step()
