# (snippet) DDP + AMP + grad accumulation, as in a typical ImageNet script
model = DDP(model.to(local_rank), device_ids=[local_rank])
scaler = torch.cuda.amp.GradScaler()
for epoch in range(start_epoch, args.epochs):
    sampler.set_epoch(epoch)
    for it, (images, target) in enumerate(loader):
        images = images.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        sync = (it + 1) % args.accum == 0
        ctx = contextlib.nullcontext() if sync else model.no_sync()
        with ctx:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                output = model(images)
                loss = criterion(output, target) / args.accum
            scaler.scale(loss).backward()
        if sync:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        if it % args.print_freq == 0 and is_main_process():
            logger.info("it %d loss %.4f", it, loss.item() * args.accum)
