# (snippet from a forum post; model, loader, criterion and optimizer are "defined above")
hidden = model.init_hidden(batch_size)
for epoch in range(num_epochs):
    for i, (inputs, targets) in enumerate(train_loader):
        inputs, targets = inputs.to(device), targets.to(device)
        outputs, hidden = model(inputs, hidden)
        loss = criterion(outputs.view(-1, vocab_size), targets.view(-1))
        optimizer.zero_grad()
        loss.backward()  # expect: AG001
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        if i % log_interval == 0:
            print(f"epoch {epoch} batch {i} loss {loss.item():.3f}")
