"""Evaluation preprocessing: a decoded camera frame in, the model's input out."""

import torch

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


def eval_transform():
    """The transform: a CHW uint8 tensor straight from the camera (BGR) -> normalized RGB."""

    def transform(frame: torch.Tensor) -> torch.Tensor:
        rgb = frame.flip(0)  # the camera delivers BGR; the model was trained on RGB
        return (rgb.float() / 255 - MEAN) / STD

    return transform
