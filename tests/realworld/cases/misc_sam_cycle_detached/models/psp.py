# Source: https://github.com/yuval-alaluf/SAM/blob/c1895aef275e702fba7560284dc16df60d65210e/models/psp.py
# Rebuilt in our own words: SAM's pSp network: the encoder maps the image with its target
# age channel to style codes, offset by the average latent loaded from the checkpoint (a
# plain tensor) or, with `start_from_encoded_w_plus`, by a frozen pretrained encoder's
# codes computed under no_grad; a StyleGAN2 decoder renders them; the output is pooled.
# The repository's encoder (an IR-SE50 feature pyramid) and decoder (StyleGAN2, in
# models/stylegan2/model.py) are reduced to small stand-ins with the same inputs and
# outputs: the decoder returns the images and, when asked, the latent it used.
import math

import torch
from torch import nn


class StyleEncoder(nn.Module):
    def __init__(self, n_styles, input_nc=4, width=512):
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
        if self.opts.start_from_encoded_w_plus:
            self.pretrained_encoder = StyleEncoder(self.n_styles, 3)
            self.pretrained_encoder.load_state_dict(checkpoint["pretrained_encoder"], strict=True)
            self.pretrained_encoder.eval()
        self.latent_avg = checkpoint["latent_avg"].to(self.opts.device)

    def forward(self, x, resize=True, input_code=False, randomize_noise=True, return_latents=False):
        if input_code:
            codes = x
        else:
            codes = self.encoder(x)
            if self.opts.start_from_latent_avg:
                codes = codes + self.latent_avg
            elif self.opts.start_from_encoded_w_plus:
                with torch.no_grad():
                    encoded = self.pretrained_encoder(x[:, :-1, :, :]) + self.latent_avg
                codes = codes + encoded
        images, result_latent = self.decoder([codes], input_is_latent=not input_code,
                                             randomize_noise=randomize_noise,
                                             return_latents=return_latents)  # fmt: skip
        if resize:
            images = self.face_pool(images)
        if return_latents:
            return images, result_latent
        return images
