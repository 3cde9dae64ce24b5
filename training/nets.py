"""The two small networks (PyTorch, training only; the package runs their ONNX export)."""

from __future__ import annotations

import torch
from torch import nn


def cbr(i: int, o: int, s: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class Detector(nn.Module):
    """CenterNet-style: per stride-4 cell, a die-centre logit and log(w/4), log(h/4)."""

    def __init__(self) -> None:
        super().__init__()
        self.s4 = nn.Sequential(cbr(3, 12, 2), cbr(12, 20, 2), cbr(20, 20))
        self.s8 = nn.Sequential(cbr(20, 32, 2), cbr(32, 32))
        self.s16 = nn.Sequential(cbr(32, 48, 2), cbr(48, 48), cbr(48, 48))
        self.up8 = nn.Upsample(scale_factor=2, mode="nearest")
        self.up4 = nn.Upsample(scale_factor=4, mode="nearest")
        self.fuse = nn.Sequential(
            nn.Conv2d(20 + 32 + 48, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True)
        )
        self.head = nn.Conv2d(32, 3, 3, padding=1)
        self.head.bias.data[0] = -4.0  # type: ignore[union-attr]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.s4(x)
        b = self.s8(a)
        c = self.s16(b)
        f = torch.cat([a, self.up8(b), self.up4(c)], 1)
        return self.head(self.fuse(f))  # type: ignore[no-any-return]


class Classifier(nn.Module):
    """Top-face value from a 32x32 crop: class 0 is 'not a die', 1..6 the face value."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            cbr(3, 24),
            nn.MaxPool2d(2),
            cbr(24, 40),
            cbr(40, 40),
            nn.MaxPool2d(2),
            cbr(40, 80),
            cbr(80, 80),
            nn.MaxPool2d(2),
            cbr(80, 128),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.2),
            nn.Linear(128, 7),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)  # type: ignore[no-any-return]


class NotADie(nn.Module):
    """Is a candidate a die at all: from the 32x32 die crop and a 32x32 crop of its surroundings
    (6 channels, vision.verifier.net_input), one logit (a die)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            cbr(6, 16),
            nn.MaxPool2d(2),
            cbr(16, 32),
            nn.MaxPool2d(2),
            cbr(32, 48),
            nn.MaxPool2d(2),
            cbr(48, 64),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(64, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)  # type: ignore[no-any-return]
