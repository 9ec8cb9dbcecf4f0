#!/usr/bin/env python3
"""The vision workload of bench/vision.sh: ForgeLM and llama-server side by side on the same model
and projector files, one image per request, streamed chat completions on loopback.

  vision.py --server forge=URL --server peer=URL --model ID [--rounds R] [--size WxH]

Per round and server, in turns: a text-only turn (the same words, no image), its own returning turn
(that conversation, the answer, one more question: the same new tokens as below on a cached text
prefix), a first turn with an image neither server has seen (a new seed each round, so nothing is
cached), and a returning turn (that conversation, the answer, one more question). Time to first
token of each, median over the rounds:
  METRIC vision.<server>.ttft_text_ms / ttft_image_ms / ttft_return_ms
  METRIC vision.<server>.ttft_text_return_ms   the text-only returning turn: the floor of a returning
                                     turn (its new tokens' prefill, without the image to read again)
  METRIC vision.<server>.encode_ms   ttft_image - ttft_text: the image's encode and decode
  RATIO vision.ttft_image     forge / peer (goal <= 1.05)
  RATIO vision.encode         forge / peer
  RATIO vision.<server>.return_vs_first   the returning turn / the first turn (forge's goal <= 0.2)
  RATIO vision.<server>.floor_vs_first    the text-only returning turn / the first turn: the least a
                                     returning turn could cost on that server
  METRIC vision.forge.return_encodes   images ForgeLM encoded in the returning turns (goal 0), from
                                       the engine's counter in /slots
Python's standard library only; loopback only.
"""
import argparse
import base64
import http.client
import json
import random
import statistics
import struct
import time
import urllib.parse
import zlib


def png(width, height, seed):
    """A PNG (8-bit RGB) of seeded noise: a new seed is a new image, hence a new content hash."""
    rnd = random.Random(seed)
    raw = b"".join(b"\x00" + bytes(rnd.getrandbits(8) for _ in range(width * 3)) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def metric(name, value):
    print(f"METRIC {name} {value}", flush=True)


def stream_ttft(url, body):
    """Posts a streamed chat completion; returns (seconds to the first content delta, the whole text)."""
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    body = dict(body, stream=True)
    start = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        raise SystemExit(f"vision.py: {url} answered {resp.status}: {resp.read()[:500]!r}")
    first = None
    text = []
    for line in resp:
        line = line.strip()
        if not line.startswith(b"data:"):
            continue
        data = line[5:].strip()
        if data == b"[DONE]":
            break
        event = json.loads(data)
        for choice in event.get("choices", []):
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                if first is None:
                    first = time.perf_counter() - start
                text.append(piece)
    conn.close()
    return (first if first is not None else time.perf_counter() - start), "".join(text)


def encodes(url):
    """ForgeLM's count of media chunks encoded (its engine snapshot in /slots' metrics); None elsewhere."""
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    total = None
    for line in text.splitlines():
        if line.startswith("forge_media_encodes_total"):
            total = (total or 0) + float(line.split()[-1])
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", action="append", required=True, help="NAME=URL")
    p.add_argument("--model", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--size", default="448x448")
    p.add_argument("--max-tokens", type=int, default=4)
    args = p.parse_args()
    servers = dict(s.split("=", 1) for s in args.server)
    width, height = (int(v) for v in args.size.split("x"))
    question = "Describe this picture in a few words."
    ttft = {name: {"text": [], "text_return": [], "image": [], "return": []} for name in servers}
    return_encodes = 0
    for r in range(args.rounds + 1):  # round 0 warms both servers up and is not counted
        image = "data:image/png;base64," + base64.b64encode(png(width, height, 1000 + r)).decode()
        for name, url in servers.items():
            common = {"model": args.model, "max_tokens": args.max_tokens, "temperature": 0, "ignore_eos": True}
            text_only = dict(common, messages=[{"role": "user", "content": question}])
            user = {"role": "user", "content": [
                {"type": "text", "text": question}, {"type": "image_url", "image_url": {"url": image}}]}
            t_text, text_said = stream_ttft(url, text_only)
            t_text_return, _ = stream_ttft(url, dict(common, messages=[
                text_only["messages"][0], {"role": "assistant", "content": text_said},
                {"role": "user", "content": "And the colours?"}]))
            t_image, said = stream_ttft(url, dict(common, messages=[user]))
            before = encodes(url) if name == "forge" else None
            returning = dict(common, messages=[
                user, {"role": "assistant", "content": said}, {"role": "user", "content": "And the colours?"}])
            t_return, _ = stream_ttft(url, returning)
            if before is not None and r > 0:
                return_encodes += encodes(url) - before
            if r > 0:
                ttft[name]["text"].append(t_text)
                ttft[name]["text_return"].append(t_text_return)
                ttft[name]["image"].append(t_image)
                ttft[name]["return"].append(t_return)
    med = {n: {k: statistics.median(v) * 1000 for k, v in d.items()} for n, d in ttft.items()}
    for name, m in med.items():
        metric(f"vision.{name}.ttft_text_ms", f"{m['text']:.1f}")
        metric(f"vision.{name}.ttft_image_ms", f"{m['image']:.1f}")
        metric(f"vision.{name}.ttft_return_ms", f"{m['return']:.1f}")
        metric(f"vision.{name}.ttft_text_return_ms", f"{m['text_return']:.1f}")
        metric(f"vision.{name}.encode_ms", f"{m['image'] - m['text']:.1f}")
    if "forge" in med and "peer" in med:
        f, q = med["forge"], med["peer"]
        print(f"RATIO vision.ttft_image {f['image'] / q['image']:.3f}", flush=True)
        print(f"RATIO vision.encode {(f['image'] - f['text']) / max(1e-9, q['image'] - q['text']):.3f}", flush=True)
    for name, m in med.items():
        print(f"RATIO vision.{name}.return_vs_first {m['return'] / m['image']:.3f}", flush=True)
        print(f"RATIO vision.{name}.floor_vs_first {m['text_return'] / m['image']:.3f}", flush=True)
    if "forge" in med:
        metric("vision.forge.return_encodes", f"{return_encodes:.0f}")


if __name__ == "__main__":
    main()
