# LightningModule: the Trainer owns the loop, training_step only returns the loss.
import lightning as L
import torch
import torch.nn.functional as F
from torch import nn


class LitClassifier(L.LightningModule):
    def __init__(self, backbone, num_classes=10, lr=1e-3):
        super().__init__()
        self.backbone = backbone
        self.head = nn.LazyLinear(num_classes)
        self.lr = lr
        self.save_hyperparameters(ignore=["backbone"])

    def forward(self, x):
        return self.head(self.backbone(x))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(dim=1) == y).float().mean()
        self.log("train/loss", loss, prog_bar=True)
        self.log("train/acc", acc)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("val/loss", loss, sync_dist=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=0.05)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs)
        return {"optimizer": opt, "lr_scheduler": sched}


if __name__ == "__main__":
    model = LitClassifier(build_backbone(cfg))
    trainer = L.Trainer(max_epochs=10, precision="16-mixed", accumulate_grad_batches=2)
    trainer.fit(model, train_loader, val_loader)
