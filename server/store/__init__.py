"""Stores behind one interface (``Store``): ``MemoryStore`` is the embedded default,
``RedisStore`` (``server.store.redis``) the one several nodes share."""

from server.store.base import LOBBY, RESYNC, Listener, Resync, Store, StoreUnavailable
from server.store.memory import MemoryStore

__all__ = ["LOBBY", "RESYNC", "Listener", "MemoryStore", "Resync", "Store", "StoreUnavailable"]
