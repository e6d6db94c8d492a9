# Saved mid-edit: evaluate() is half typed, train() underneath has the real bug.
import torch
from torch import nn


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        for x, y in loader  # expect: AG000
            preds = model(x)


def train(model, loader, optimizer, epochs=3):
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(loader.batch_size)
    for epoch in range(epochs):
        for x, y in loader:
            output, hidden = model(x, hidden)
            loss = criterion(output, y)
            optimizer.zero_grad()
            loss.backward()  # expect: AG001
            optimizer.step()
