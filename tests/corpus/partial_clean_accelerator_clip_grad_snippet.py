# A snippet of clean_nested_train_function_reads_accelerator.py's loop with every object
# defined elsewhere: `accelerator` is bound nowhere here, and a name we know nothing of is
# no tensor because its method's name ends with an underscore.
import torch.nn.functional as F

for epoch in range(3):
    for batch in loader:
        loss = F.mse_loss(model(batch), batch)
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
