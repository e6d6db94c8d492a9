# Source: https://github.com/davda54/sam/issues/10
# Rebuilt in our own words: a multi-head model sums per-task losses for the first SAM pass, re-runs the forward for the second pass, but keeps adding the new per-task losses onto the same running total.
# Mechanism: accumulated loss backpropagated
def run_batch(model, optimizer, image, target, n_heads, head_loss, stats):
    preds, attn = model(image)

    total = 0
    for h in range(n_heads):
        loss_h, acc_h = head_loss(preds, target, h)
        total += loss_h
        stats["loss"][h] += loss_h.item()
        stats["acc"][h] += acc_h.item()

    optimizer.zero_grad()
    total.backward()
    optimizer.first_step(zero_grad=True)

    preds, attn = model(image)
    for h in range(n_heads):
        loss_h, acc_h = head_loss(preds, target, h)
        total += loss_h
        stats["loss"][h] += loss_h.item()
        stats["acc"][h] += acc_h.item()
    total.backward()
    optimizer.second_step(zero_grad=True)
