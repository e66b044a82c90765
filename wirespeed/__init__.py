"""wirespeed: SmartNIC dataplane blocks in SystemVerilog, with a cycle-accurate model and CLI."""

__version__ = "0.1.0"
