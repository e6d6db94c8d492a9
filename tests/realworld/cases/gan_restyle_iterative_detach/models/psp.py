# Source: https://github.com/yuval-alaluf/restyle-encoder/blob/5e80276228cc5d9e0a39a16119210ee49ce2c975/models/psp.py
# Rebuilt in our own words: the ReStyle pSp network: an encoder predicts a residual to the
# latent code (the average latent on the first pass, the previous pass's latent when the
# input carries the previous image as 3 more channels), a StyleGAN2 decoder renders it and
# the output is pooled; `latent_avg` is loaded from the checkpoint (a plain tensor).
# The repository's encoder (an IR-SE50 feature pyramid) and decoder (StyleGAN2, in
# models/stylegan2/model.py) are reduced to small stand-ins with the same inputs and
# outputs: the decoder returns the images and, when asked, the latent it used.
import math

import torch
from torch import nn


class StyleEncoder(nn.Module):
    def __init__(self, n_styles, input_nc=6, width=512):
        super().__init__()
        self.n_styles, self.width = n_styles, width
        self.features = nn.Sequential(nn.Conv2d(input_nc, 32, 3, stride=2, padding=1), nn.PReLU(32),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())  # fmt: skip
        self.to_styles = nn.Linear(32, n_styles * width)

    def forward(self, x):
        return self.to_styles(self.features(x)).view(-1, self.n_styles, self.width)


class StyleDecoder(nn.Module):
    def __init__(self, size, style_dim=512):
        super().__init__()
        self.size = size
        self.to_image = nn.Linear(style_dim, 3 * 16 * 16)

    def forward(self, styles, input_is_latent=False, randomize_noise=True, return_latents=False):
        latent = styles[0]
        image = torch.tanh(self.to_image(latent.mean(dim=1))).view(-1, 3, 16, 16)
        image = nn.functional.interpolate(image, size=self.size)
        return image, (latent if return_latents else None)


class pSp(nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.opts = opts
        self.n_styles = int(math.log(opts.output_size, 2)) * 2 - 2
        self.encoder = StyleEncoder(self.n_styles, opts.input_nc)
        self.decoder = StyleDecoder(opts.output_size)
        self.face_pool = torch.nn.AdaptiveAvgPool2d((256, 256))
        self.load_weights()

    def load_weights(self):
        checkpoint = torch.load(self.opts.checkpoint_path, map_location="cpu")
        self.encoder.load_state_dict(checkpoint["encoder"], strict=False)
        self.decoder.load_state_dict(checkpoint["decoder"], strict=True)
        self.latent_avg = checkpoint["latent_avg"].to(self.opts.device)

    def forward(self, x, latent=None, resize=True, input_code=False, randomize_noise=True,
                return_latents=False):  # fmt: skip
        if input_code:
            codes = x
        else:
            codes = self.encoder(x)
            if x.shape[1] == 6 and latent is not None:
                codes = codes + latent  # a residual on the previous pass's latent
            else:
                codes = codes + self.latent_avg.repeat(codes.shape[0], 1, 1)
        images, result_latent = self.decoder([codes], input_is_latent=not input_code,
                                             randomize_noise=randomize_noise,
                                             return_latents=return_latents)  # fmt: skip
        if resize:
            images = self.face_pool(images)
        if return_latents:
            return images, result_latent
        return images
