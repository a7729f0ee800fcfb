"""The Redis store's pipelined connection (server/store/redis_pipe.py), on a private
``redis-server``: every caller gets its own reply, however many share the connection,
whoever gives up, and whatever happens to Redis meanwhile."""

from __future__ import annotations

import asyncio
import os
import signal

import hiredis
import pytest
import redis
from redis.exceptions import ResponseError
from redis_server import RedisServer

from server.store.redis import RedisStore
from server.store.redis_pipe import Pipe, replies


@pytest.fixture
def url(redis_server: RedisServer) -> str:
    redis_server.client().flushall()
    return redis_server.url


async def test_a_thousand_concurrent_callers_each_get_their_own_reply(url):
    pipe = Pipe(url)
    try:
        replies = await asyncio.gather(*(pipe.call("ECHO", f"caller {i}") for i in range(1000)))
        assert replies == [f"caller {i}".encode() for i in range(1000)]
    finally:
        pipe.close()


async def test_all_callers_share_one_connection(url, redis_server):
    pipe = Pipe(url, name="pipe-under-test")
    try:
        await asyncio.gather(*(pipe.call("INCR", "n") for _ in range(200)))
        clients = redis_server.client().client_list()
        assert [c["name"] for c in clients].count("pipe-under-test") == 1
        assert await pipe.call("GET", "n") == b"200"
    finally:
        pipe.close()


async def test_a_caller_that_gives_up_leaves_the_others_replies_in_step(url):
    pipe = Pipe(url)
    try:
        await pipe.call("SET", "k", "v")
        abandoned = asyncio.create_task(pipe.call("ECHO", "nobody reads this"))
        await asyncio.sleep(0)  # sent, and its reply on the way
        abandoned.cancel()
        with pytest.raises(asyncio.CancelledError):
            await abandoned
        assert await pipe.call("GET", "k") == b"v"
        assert await pipe.call("ECHO", "mine") == b"mine"
    finally:
        pipe.close()


async def test_an_error_reply_raises_redis_text_and_the_connection_goes_on(url):
    pipe = Pipe(url)
    try:
        await pipe.call("SET", "text", "not a list")
        with pytest.raises(ResponseError, match="WRONGTYPE"):
            await pipe.call("LPUSH", "text", "x")
        assert await pipe.call("GET", "text") == b"not a list"
    finally:
        pipe.close()


async def test_a_script_is_loaded_again_after_redis_forgets_it(url, redis_server):
    pipe = Pipe(url)
    try:
        double = pipe.register_script("return tonumber(ARGV[1]) * 2 + #KEYS")
        assert await double(keys=["a"], args=[20]) == 41
        redis_server.client().script_flush()
        assert await double(keys=["a", "b"], args=[20]) == 42
    finally:
        pipe.close()


async def test_a_script_run_for_many_inputs_at_once_is_loaded_again_where_forgotten(
    url, redis_server
):
    pipe = Pipe(url, name="pipe-under-test")
    try:
        count = pipe.register_script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        runs = [([f"n{i}"], [i]) for i in range(16)]
        assert await count.each(runs) == list(range(16))
        redis_server.client().script_flush()
        assert await count.each(runs) == [2 * i for i in range(16)]  # each ran once more
        with pytest.raises(ResponseError, match="not an integer"):
            await count.each([(["n1"], [1]), (["text"], ["not a number"])])
        assert await pipe.call("GET", "n1") == b"3"  # the runs before it did run
    finally:
        pipe.close()


async def test_a_redis_that_stops_answering_fails_the_waiting_calls_and_is_found_again(
    url, redis_server
):
    pipe = Pipe(url, timeout_s=0.3)
    try:
        assert await pipe.call("PING") == b"PONG"
        assert redis_server.process is not None
        os.kill(redis_server.process.pid, signal.SIGSTOP)  # silent, as a dropped route is
        try:
            async with asyncio.timeout(5):  # a hang would fail here, not forever
                with pytest.raises(ConnectionError):
                    await pipe.call("PING")
        finally:
            os.kill(redis_server.process.pid, signal.SIGCONT)
        assert await pipe.call("PING") == b"PONG"
    finally:
        pipe.close()


# Keeps Redis busy (and the connection silent) for ARGV[1] milliseconds.
_BUSY = """
local function ms() local t = redis.call('TIME') return t[1] * 1000 + t[2] / 1000 end
local start = ms()
while ms() - start < tonumber(ARGV[1]) do end
return 1
"""


async def test_a_slow_reply_within_the_stall_time_is_waited_for(url):
    pipe = Pipe(url, timeout_s=0.3)
    try:
        busy = pipe.register_script(_BUSY)
        for _ in range(5):  # sent at any point of the stall watch's period
            await asyncio.sleep(0.13)
            assert await busy(args=[200]) == 1
    finally:
        pipe.close()


async def test_a_restarted_redis_is_reconnected_to_by_the_next_call(url, redis_server):
    pipe = Pipe(url)
    try:
        await pipe.call("SET", "k", "before")
        redis_server.restart()
        with pytest.raises(ConnectionError):
            await pipe.call("GET", "k")  # the connection it was sent on is gone
        assert await pipe.call("SET", "k", "after") is not None
        assert await pipe.call("GET", "k") == b"after"
    finally:
        pipe.close()


async def test_the_password_and_database_in_the_url_are_used(redis_server):
    admin = redis_server.client()
    admin.flushall()
    admin.config_set("requirepass", "s3cret")
    try:
        pipe = Pipe(f"redis://:s3cret@127.0.0.1:{redis_server.port}/3")
        try:
            await pipe.call("SET", "where", "db 3")
        finally:
            pipe.close()
        with pytest.raises(ConnectionError, match="AUTH"):
            await Pipe(f"redis://:wrong@127.0.0.1:{redis_server.port}/0").call("PING")
    finally:
        authed = redis.Redis(
            host="127.0.0.1", port=redis_server.port, db=3, password="s3cret", socket_timeout=5
        )
        assert authed.get("where") == b"db 3"
        authed.config_set("requirepass", "")


def test_the_pipe_takes_only_urls_whose_every_option_it_honours():
    for url in ("redis://h", "redis://u:p@h:7000/3", "redis://h/?db=2", "rediss://h:6380/1"):
        assert Pipe.handles(url), url
    for url in (
        "unix:///run/redis.sock",
        "redis://h/?socket_keepalive=true",
        "rediss://h?ssl_ca_certs=/etc/ca.pem",
    ):
        assert not Pipe.handles(url), url
        with pytest.raises(ValueError):
            Pipe(url)


async def test_the_database_given_as_a_query_option_is_used(redis_server):
    redis_server.client().flushall()
    pipe = Pipe(f"redis://127.0.0.1:{redis_server.port}/?db=2")
    try:
        await pipe.call("SET", "where", "db 2")
    finally:
        pipe.close()
    in_db_2 = redis.Redis(host="127.0.0.1", port=redis_server.port, db=2, socket_timeout=5)
    assert in_db_2.get("where") == b"db 2"


async def test_a_store_url_with_options_the_pipe_ignores_keeps_redis_py_for_every_call(
    redis_server,
):
    redis_server.client().flushall()
    store = RedisStore(f"{redis_server.url}?socket_keepalive=true")
    await store.start()
    try:
        assert await store.spectators("nope") == 0
        assert await store.load("nope") is None
        # The pipe names its connection (CLIENT SETNAME); none was opened.
        names = [c["name"] for c in redis_server.client().client_list()]
        assert "kondavo" not in names, names
    finally:
        await store.close()


def test_replies_come_whole_however_the_bytes_are_cut():
    parser = hiredis.Reader()
    garbled: list[None] = []
    stream = b"+OK\r\n$5\r\nhello\r\n*2\r\n:1\r\n:2\r\n"
    got = []
    for i in range(0, len(stream), 3):  # three bytes at a time: most cuts fall mid-reply
        got += replies(parser, stream[i : i + 3], lambda: garbled.append(None))
    assert got == [b"OK", b"hello", [1, 2]]
    assert garbled == []


def test_bytes_that_are_not_redis_end_the_replies_and_say_so_once():
    garbled: list[None] = []
    got = list(replies(hiredis.Reader(), b":7\r\n<html>\r\n:8\r\n", lambda: garbled.append(None)))
    assert got == [7]
    assert garbled == [None]


async def test_a_server_that_is_not_redis_fails_the_call():
    async def not_redis(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        await writer.drain()
        await reader.read()  # until the pipe hangs up
        writer.close()

    server = await asyncio.start_server(not_redis, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    pipe = Pipe(f"redis://127.0.0.1:{port}/0")
    try:
        async with asyncio.timeout(5):  # a hang would fail here, not forever
            with pytest.raises(ConnectionError):
                await pipe.call("PING")
    finally:
        pipe.close()
        server.close()
        await server.wait_closed()
