"""Reading reference checkpoints in gradgate's own process, without torch and without weights.

``sniff`` recognises the format from the first bytes; ``safetensors`` reads a header;
``torchfile`` checks a torch.save file's structure and has ``pickles`` scan its pickle for
objects (never unpickling it); ``reference`` ties them together for one path and words every
way a file can be unusable.
"""
