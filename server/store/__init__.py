"""Stores behind one interface (``Store``): ``MemoryStore`` is the embedded default."""

from .base import Listener, Store
from .memory import MemoryStore

__all__ = ["Listener", "MemoryStore", "Store"]
