"""Result files: writing, reading and run folders."""
