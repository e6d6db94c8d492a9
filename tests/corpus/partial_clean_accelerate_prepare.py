# (snippet) Accelerate-style script: prepare() wraps the model, optimizer and loaders
# built above; accelerator.backward(loss) replaces loss.backward().
from accelerate import Accelerator

accelerator = Accelerator(gradient_accumulation_steps=2, mixed_precision="bf16")
model, optimizer, train_dataloader, eval_dataloader, lr_scheduler = accelerator.prepare(
    model, optimizer, train_dataloader, eval_dataloader, lr_scheduler
)
for epoch in range(num_epochs):
    model.train()
    for step, batch in enumerate(train_dataloader):
        with accelerator.accumulate(model):
            outputs = model(**batch)
            loss = outputs.loss
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
    model.eval()
    for batch in eval_dataloader:
        with torch.no_grad():
            outputs = model(**batch)
        predictions = outputs.logits.argmax(dim=-1)
        metric.add_batch(*accelerator.gather_for_metrics((predictions, batch["labels"])))
    accelerator.print(f"epoch {epoch}:", metric.compute())
