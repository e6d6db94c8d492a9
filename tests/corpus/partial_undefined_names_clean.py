# (snippet) net, encoder, loader, opt come from elsewhere in the project.
for epoch in range(args.epochs):
    net.train()
    meter = AverageMeter()
    for batch in loader:
        images, labels = batch["image"].cuda(), batch["label"].cuda()
        with torch.no_grad():
            feats = encoder(images)
        logits = net(feats)
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        scheduler.step()
        meter.update(loss.item(), images.size(0))
    writer.add_scalar("train/loss", meter.avg, epoch)
    if epoch % args.eval_every == 0:
        validate(net, encoder, val_loader)
