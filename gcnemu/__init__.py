"""gcnemu: a bit-exact emulator of the AMD GCN 1.1 (gfx7, Sea Islands) GPU."""
