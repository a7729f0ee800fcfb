"""Stores behind one interface (``Store``): ``MemoryStore`` is the embedded default,
``RedisStore`` (``server.store.redis``) the one several nodes share."""

from .base import RESYNC, Listener, Resync, Store, StoreUnavailable
from .memory import MemoryStore

__all__ = ["RESYNC", "Listener", "MemoryStore", "Resync", "Store", "StoreUnavailable"]
