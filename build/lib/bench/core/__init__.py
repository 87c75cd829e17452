"""Shared plumbing: errors, atomic I/O, paths, the registry, seeding."""
