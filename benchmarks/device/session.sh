#!/bin/bash
# One device call (the `device` tool's run): setup, a smoke test that stops
# the call early when the code does not run there, then the named steps in
# order, each under its own time limit (seconds, env STEP_LIMIT_<step>).
#   bash benchmarks/device/session.sh bench embed seq paper000
#   bash benchmarks/device/session.sh tuning   (TUNING_SOLVERS, TUNING_SEEDS=0,1,2)
#   bash benchmarks/device/session.sh rest     (REST_PROCS=6, REST_SUITE,
#                                               REST_KEEP; issue 35)
# carry: .whl workdirs/gpu (benchmarks/device/README.md). Outputs in $OUT.
set -u -o pipefail
T0=$(date +%s)
stage() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
limit() { local v="STEP_LIMIT_$1"; echo "${!v:-$2}"; }
export PYTHONUNBUFFERED=1 TF_CPP_MIN_LOG_LEVEL=2 PYTHONWARNINGS=ignore
exec > >(tee -a "$OUT/log.txt") 2>&1
D=benchmarks/device
# A step's outputs, without checkpoints, into $OUT/<step><suffix>.tgz
# (written aside under this process's id, then renamed, so a call cut
# mid-write keeps the last whole one).
pack() { local tmp="$OUT/.$1.$BASHPID.tgz"
         tar czf "$tmp" --exclude=checkpoints -C /tmp/w "$1" \
         && mv "$tmp" "$OUT/$1${2:-}.tgz"; }
stage setup
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target /tmp/site .whl/*.whl || { echo "error: wheels"; exit 3; }
export PYTHONPATH=/tmp/site:$PWD BLM_DATA_DIR=/tmp/data
python3 $D/rebuild_minilm.py workdirs/gpu/minilm /tmp/minilm /tmp/site \
    || { echo "error: minilm"; exit 4; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import jax, flax, optax, tensorflow_datasets as t; print('jax', jax.__version__, 'flax', flax.__version__, 'optax', optax.__version__, 'tfds', t.__version__, jax.devices())" \
    || { echo "error: imports"; exit 5; }
stage smoke
timeout 150 python3 -m blm_jax.cli.bench --models=ffnn --dims=384 \
    --forms=vmap --rounds=1 --num_train=64 --out=/tmp/smoke.json | tail -3
[ -s /tmp/smoke.json ] || { echo "error: smoke"; exit 6; }
mkdir -p /tmp/w
for step in "$@"; do
  case $step in
  bench)  # ~50 s per solver and width (compiles included) on an H200.
    stage "grid forms benchmark"
    timeout "$(limit bench 450)" python3 -m blm_jax.cli.bench \
        --models="${BENCH_MODELS:-ffnn,cnn,sent_vae,vae2}" --num_train=2000 \
        --rounds=2 --out="$OUT/grid_forms.json" | grep -v "cells:" | tail -20 ;;
  embed)  # The forward table compiles once per shape: ~10 s each.
    stage "embedding benchmark"
    timeout "$(limit embed 150)" python3 benchmarks/embed_bench.py \
        --batches=128,2048 --sentences=20000 --batch_size=1024 \
        --out="$OUT/embed.json" | tail -12 ;;
  rest)  # issue 35: REST_SUITE's grids (default paper000_seq,paper000_ctx)
    # without a record in REST_KEEP (default studies/records/paper_rest)
    # Dealt dataset by dataset to REST_PROCS processes; each builds its
    # dataset's data (checked against the word-embedding rows that
    # travelled) and runs its grids, then the next dataset, so building
    # overlaps the other processes' training. Each finished grid's record
    # and predictions land in /tmp/w/rest/keep (packed), its workdir in
    # /tmp/rest_out (not). Everything stops at REST_END seconds into the
    # call (default 555), so the last pack fits its 600 s; a grid cut then
    # is lost.
    mkdir -p /tmp/w/rest; rm -f /tmp/rest_warm
    ( while sleep 60; do pack rest .partial; done ) & packer=$!
    python3 $D/collect_vocab.py --rest_plan=${REST_PROCS:-6} > /tmp/rest_plan
    # No preallocation: six processes each preallocating 0.15 of an H100
    # left its driver too little to instantiate CUDA graphs (OOM).
    export XLA_PYTHON_CLIENT_PREALLOCATE=false \
        JAX_DEFAULT_MATMUL_PRECISION=highest JAX_COMPILATION_CACHE_DIR=/tmp/jax_cache
    suite=${REST_SUITE:-paper000_seq,paper000_ctx}
    stage "grids: rest of $suite, $(wc -l < /tmp/rest_plan) processes (float32 matmuls at full precision)"
    end=$(( T0 + ${REST_END:-555} ))
    left() { echo $(( end - $(date +%s) )); }  # seconds to the step's end
    rest_proc() {  # $1: process index, $2: its dataset/model grids
      local ds grids
      for ds in $(tr , '\n' <<< "$2" | cut -d/ -f1 | uniq); do
        [ "$(left)" -gt 30 ] || break
        grids=$(tr , '\n' <<< "$2" | grep "^$ds/" | paste -sd,)
        echo "=== [$(( $(date +%s) - T0 ))s] $ds: data"
        NAMES=$ds PROCS=3 timeout -k 5 "$(left)" python3 \
            $D/collect_vocab.py /tmp/vocab_$ds.json \
            workdirs/gpu/minilm/word_ids.npy | grep "vocab check" \
            || { echo "error: data or vocabulary of $ds"
                 [ "$1" = 0 ] && touch /tmp/rest_warm; continue; }
        # MiniLM's programs compiled once, by process 0, into the shared
        # compilation cache before the others embed: six processes
        # compiling them at once took 100-190 s each to embed 42-57 k
        # sentences, one alone 43 s, and 2.3 s with the cache filled.
        if [ "$1" = 0 ] && [ ! -e /tmp/rest_warm ]; then
          case $ds in chunks_*) cfg=sent_vae.py:source=${ds#chunks_} ;;
                      *) cfg=ffnn.py:dataset=$ds ;; esac
          timeout -k 5 "$(left)" python3 -m blm_jax.cli.embed \
              --config=configs/$cfg --config.encoder.batch_size=0 \
              --split=train,dev,test 2>&1 | tr '\r' '\n' | grep "embedded in"
          touch /tmp/rest_warm
        fi
        while [ ! -e /tmp/rest_warm ] && [ "$(left)" -gt 30 ]; do
          sleep 2; done
        [ "$(left)" -gt 30 ] || break
        echo "=== [$(( $(date +%s) - T0 ))s] $ds: grids $grids"
        timeout -k 10 "$(left)" \
            python3 -m blm_jax.cli.reproduce --suite="$suite" --grids="$grids" \
            --encoder_batch_size=0 --out=/tmp/rest_out \
            --keep=/tmp/w/rest/keep 2>&1 | tee -a /tmp/w/rest/full$1.log \
            | grep "^==\|rror\|wrote"
      done > /tmp/w/rest/proc$1.log 2>&1
      [ "$1" = 0 ] && touch /tmp/rest_warm
    }
    i=0
    while read -r grids; do rest_proc $i "$grids" & i=$((i + 1)); done \
        < /tmp/rest_plan
    wait $(jobs -p | grep -vx "$packer")
    cat /tmp/w/rest/proc*.log | grep -v "^== .*: \(plan\|to run\)" | tail -40
    kill $packer; pack rest ;;
  seq|paper000|solvers|tuning)
    # Data first (one builder process per config), checked against the
    # word-embedding rows that travelled; then the grids, or the budget.
    stage "data: $step"
    NAMES=$step PROCS=12 timeout "$(limit data 300)" python3 \
        $D/collect_vocab.py /tmp/vocab_$step.json \
        workdirs/gpu/minilm/word_ids.npy \
        | grep "vocab check" || { echo "error: data or vocabulary"; continue; }
    mkdir -p /tmp/w/$step
    # Packed every minute too (<step>.partial.tgz), so a call cut at its
    # limit still brings back the runs that finished.
    ( while sleep 60; do pack $step .partial; done ) & packer=$!
    if [ "$step" = tuning ]; then  # issue 36: the new solvers' dev budget
      # The embedding cache filled first, so the runs only read it.
      stage "embedding spray_load for the tuning runs"
      timeout 120 python3 -m blm_jax.cli.embed \
          --config=configs/vae2.py:dataset=spray_load \
          --config.encoder.batch_size=0 --split=train,dev,test | tail -2
      stage "dev tuning budget (float32 matmuls at full precision)"
      # One process per solver (its seeds in turn; each setting is seconds
      # of training and tens of compiling and reporting), so compiling does
      # not starve: 15 side by side (one per solver and seed) finished no
      # setting in 330 s on an H100, one fp32 gemm autotuning taking 2m18s.
      # A persistent compilation cache, so a program compiled for one seed
      # or setting is read by the next that needs the same (not yet timed).
      for solver in ${TUNING_SOLVERS:-relnet cnn_seq vae vae_1d_2level two_level_vae_subnets}; do
        XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_DEFAULT_MATMUL_PRECISION=highest \
            JAX_COMPILATION_CACHE_DIR=/tmp/jax_cache \
            timeout -k 15 "$(limit tuning 400)" python3 studies/vae2_ablation.py \
            --out=/tmp/w/tuning/ablation_$solver --budget=$solver \
            --seeds=${TUNING_SEEDS:-0,1,2} ${TUNING_ARGS:-} \
            > /tmp/w/tuning/$solver.log 2>&1 &
      done
      wait $(jobs -p | grep -vx "$packer")
      grep -h "rror" /tmp/w/tuning/*.log | sort | uniq -c | head
      ls /tmp/w/tuning/ablation_*/*/*/results.json 2>/dev/null | wc -l
    else
      case $step in
        seq) args="--datasets=agreement_fr_seq,agreement_it_seq,agreement_ro_seq --models=ffnn,vae2 --seeds=0,1,2" ;;
        paper000) args="--suite=paper000" ;;
        solvers) args="--suite=solvers --seeds=0,1,2" ;;
      esac
      stage "grids: $step (float32 matmuls at full precision)"
      JAX_DEFAULT_MATMUL_PRECISION=highest timeout "$(limit $step 400)" \
          python3 -m blm_jax.cli.reproduce $args --encoder_batch_size=0 \
          --out=/tmp/w/$step 2>&1 \
          | tee /tmp/w/$step/device_run.log | grep "^==\|^plan\|rror\|wrote"
    fi
    kill $packer; pack $step ;;
  *) echo "error: unknown step $step (bench, embed, seq, paper000, solvers, tuning, rest)" ;;
  esac
done
stage done
