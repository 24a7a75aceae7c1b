"""Built-in example kernels (source and code object) used by `gcnemu run --example`."""
