# runnable
# Rebuilt from diffusers' advanced DreamBooth LoRA scripts: `freeze_text_encoder` is
# computed once; when it holds, the prompt embedding is computed once without grad before
# the loop, and otherwise it is recomputed with grad in every step. On either path each
# backward goes through this step's graph only: a flag bound once (a bare name as much as
# `args.flag`) takes the same branch of every `if` on it.
import torch


def main(train_text_encoder: bool):
    torch.manual_seed(0)
    text_encoder = torch.nn.Linear(4, 4)
    unet = torch.nn.Linear(4, 1)
    freeze_text_encoder = not train_text_encoder
    params = list(unet.parameters())
    if not freeze_text_encoder:
        params += list(text_encoder.parameters())
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    ids = torch.randn(2, 4)
    if freeze_text_encoder:
        with torch.no_grad():
            prompt_embeds = text_encoder(ids)
    for step in range(3):
        if freeze_text_encoder:
            model_pred = unet(prompt_embeds.tanh())
        else:
            prompt_embeds = text_encoder(ids)
            model_pred = unet(prompt_embeds.tanh())
        loss = model_pred.pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


main(train_text_encoder=False)
main(train_text_encoder=True)
