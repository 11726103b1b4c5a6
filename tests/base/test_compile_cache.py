"""The commands' persistent compilation cache: where it goes, and that a
second process compiles nothing the first compiled."""

import os
import subprocess
import sys

import pytest

from blm_jax.base import compile_cache
from tests import ROOT


# Embeds 6 sentences with a tiny BERT through the project's embedding
# road, then prints how many programs XLA compiled and how many it read
# from the persistent cache.
_EMBED = r"""
import sys, jax
from jax import monitoring
from blm_jax.base import compile_cache
counts = {"miss": 0, "hit": 0}
def on_event(name, **kw):
  if name == "/jax/compilation_cache/cache_misses": counts["miss"] += 1
  if name == "/jax/compilation_cache/cache_hits": counts["hit"] += 1
monitoring.register_event_listener(on_event)
print("cache", compile_cache.enable())
from blm_jax.embedding import embed
embed.embed_sentences([f"the cat sat on mat {i}" for i in range(6)],
                      embed.EncoderSpec(sys.argv[1]), batch_size=4,
                      progress=False)
print("misses", counts["miss"], "hits", counts["hit"])
"""


def test_where_the_cache_goes(monkeypatch, tmp_path):
  monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)
  monkeypatch.setenv("BLM_XLA_CACHE", str(tmp_path / "x"))
  assert compile_cache.cache_dir() == str(tmp_path / "x")
  monkeypatch.setenv("BLM_XLA_CACHE", "off")
  assert compile_cache.cache_dir() is None
  monkeypatch.delenv("BLM_XLA_CACHE")
  assert compile_cache.cache_dir() == os.path.expanduser(
      "~/.cache/blm_jax/xla")
  monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path / "jax"))
  assert compile_cache.cache_dir() == str(tmp_path / "jax")


@pytest.mark.slow
def test_a_second_process_compiles_nothing_the_first_compiled(tmp_path):
  from tests import tiny_checkpoints
  encoder = tiny_checkpoints.write_bert(str(tmp_path / "tiny_bert"))
  env = {k: v for k, v in os.environ.items()
         if not k.startswith("JAX_PERSISTENT_CACHE")}
  env.update(JAX_COMPILATION_CACHE_DIR="", BLM_XLA_CACHE=str(tmp_path / "x"),
             PYTHONPATH=ROOT)
  del env["JAX_COMPILATION_CACHE_DIR"]

  def run():
    out = subprocess.run([sys.executable, "-c", _EMBED, encoder], cwd=ROOT,
                         env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    words = out.stdout.split()
    return int(words[words.index("misses") + 1]), int(
        words[words.index("hits") + 1])

  first_misses, _ = run()
  assert first_misses > 0 and os.listdir(tmp_path / "x")
  misses, hits = run()
  assert (misses, hits) == (0, first_misses)
