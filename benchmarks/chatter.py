"""Ordinary log chatter of several kinds, generated: what healthy runs of common tools print.

Used for two things, kept apart:

1. ``src/rocmfix/data/chatter-lines.txt``: the distinct lines of ordinary chatter,
   numbers and hex ids as "0" (``python benchmarks/chatter.py --table``). Stage 1 of
   the two-stage Hyperscan scan (``rocmfix.extract._rare``) uses a required text only
   where no line there holds it. The table is built from the kinds in ``TABLE_KINDS`` only.
2. Extra rows of ``benchmarks/explain_speed.py``: explain vs ``grep -c -E`` on a log
   of each kind. Kinds in ``HELD_OUT`` (and the benchmark generator's own training
   log) never went into the table: their rows measure stage 1 on chatter it was not
   built from.

The lines are written for this file in the shapes those tools print (timestamps,
progress bars, metrics, banners); no line of a real log or of the KB's test texts
was copied, and none of them names an error. Deterministic: ``random.Random(seed)``.

Run: python benchmarks/chatter.py --table            # rewrite the word table
     python benchmarks/chatter.py --kind vllm --mb 256 OUT.log
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

# Each template is formatted with the fields of ``_fields``. A template marked "*" is of
# the run's body (progress, metrics, requests: repeated all through the log); the others
# are its head (banners, configuration: printed once, at the start).
KINDS: dict[str, tuple[str, ...]] = {
    "hf": (  # transformers Trainer / accelerate
        "*{{'loss': {l:.4f}, 'grad_norm': {g:.4f}, 'learning_rate': {lr:.2e}, 'epoch': {ep:.2f}}}",
        "* {p:2d}%|{bar}| {i}/{n} [{mm:02d}:{ss:02d}<{mm2:02d}:{ss:02d}, {it:.2f}it/s]",
        "*{{'eval_loss': {l:.4f}, 'eval_runtime': {f:.3f}, 'eval_samples_per_second': {t:.3f}, 'eval_steps_per_second': {g:.3f}, 'epoch': {ep:.2f}}}",
        "[INFO|trainer.py:{ln}] 2024-05-{d:02d} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d} >> ***** Running training *****",
        "[INFO|trainer.py:{ln}] >>   Num examples = {n:,}",
        "[INFO|trainer.py:{ln}] >>   Instantaneous batch size per device = {b}",
        "[INFO|trainer.py:{ln}] >>   Total train batch size (w. parallel, distributed & accumulation) = {b2}",
        "[INFO|trainer.py:{ln}] >>   Gradient Accumulation steps = {b}",
        "[INFO|trainer.py:{ln}] >>   Total optimization steps = {n:,}",
        "[INFO|trainer.py:{ln}] >>   Number of trainable parameters = {n:,}",
        "[INFO|configuration_utils.py:{ln}] loading configuration file config.json from cache at /home/user/.cache/huggingface/hub/models--{org}--{model}/snapshots/{hx}/config.json",
        "[INFO|modeling_utils.py:{ln}] loading weights file model.safetensors from cache at /home/user/.cache/huggingface/hub/models--{org}--{model}/snapshots/{hx}/model.safetensors",
        "[INFO|tokenization_utils_base.py:{ln}] loading file tokenizer.json from cache at None",
        "*[INFO|trainer.py:{ln}] Saving model checkpoint to ./output/checkpoint-{i}",
        "*[INFO|configuration_utils.py:{ln}] Configuration saved in ./output/checkpoint-{i}/config.json",
        "Loading checkpoint shards: {p:3d}%|{bar}| {r}/4 [00:{ss:02d}<00:{mm:02d}, {it:.2f}s/it]",
        "*Map (num_proc={b}): {p:3d}%|{bar}| {i}/{n} [00:{ss:02d}<00:00, {t:.2f} examples/s]",
        "*{hh:02d}/{d:02d}/2024 {hh:02d}:{mm:02d}:{ss:02d} - INFO - accelerate.accelerator - Saving current state to output/step_{i}",
        "{hh:02d}/{d:02d}/2024 {hh:02d}:{mm:02d}:{ss:02d} - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl",
        "Num processes: {b}  Process index: {r}  Local process index: {r}  Device: cuda:{r}  Mixed precision type: bf16",
        "wandb: Tracking run with wandb version 0.16.{r}",
        "wandb: Run data is saved locally in /home/user/run/wandb/run-2024050{r}_{hh:02d}{mm:02d}{ss:02d}-{hx8}",
    ),
    "deepspeed": (
        "*[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [logging.py:96:log_dist] [Rank 0] step={i}, skipped=0, lr=[{lr:.6e}], mom=[(0.9, 0.95)]",
        "*[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [timer.py:260:stop] epoch=0/micro_step={i}/global_step={i}, RunningAvgSamplesPerSec={t:.4f}, CurrSamplesPerSec={t2:.4f}, MemAllocated={g:.2f}GB, MaxMemAllocated={g2:.2f}GB",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [config.py:984:print]   train_batch_size ............. {b2}",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [config.py:984:print]   train_micro_batch_size_per_gpu  {b}",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [config.py:984:print]   zero_optimization_stage ...... {z}",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [config.py:984:print]   gradient_accumulation_steps .. {b}",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [config.py:984:print]   world_size ................... {b2}",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [stage_1_and_2.py:{ln}:__init__] Reduce bucket size 500000000",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [stage_1_and_2.py:{ln}:__init__] Allgather bucket size 500000000",
        "*[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [utils.py:{ln}:see_memory_usage] MA {g:.2f} GB         Max_MA {g2:.2f} GB         CA {g:.2f} GB         Max_CA {g2:.0f} GB ",
        "*[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [utils.py:{ln}:see_memory_usage] CPU Virtual Memory:  used = {g:.2f} GB, percent = {p}.{r}%",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [engine.py:{ln}:_configure_optimizer] Using DeepSpeed Optimizer param name adamw as basic optimizer",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [comm.py:637:init_distributed] cdb=None",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [real_accelerator.py:{ln}:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [launch.py:{ln}:main] WORLD INFO DICT: {{'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}}",
        "[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [launch.py:{ln}:main] nnodes=1, num_local_procs=8, node_rank=0",
        "*[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [engine.py:{ln}:_save_checkpoint] Saving model checkpoint: ./ckpt/global_step{i}/mp_rank_00_model_states.pt",
        "*[{date} {hh:02d}:{mm:02d}:{ss:02d},{ms:03d}] [INFO] [torch_checkpoint_engine.py:{ln}:commit] [Torch] Checkpoint global_step{i} is ready now!",
        "Time to load fused_adam op: {f:.4f} seconds",
        "Using /home/user/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...",
        "ninja: no work to do.",
    ),
    "megatron": (
        "* iteration {i:8d}/{n:8d} | consumed samples: {c:12d} | elapsed time per iteration (ms): {f:.1f} | learning rate: {lr:.6E} | global batch size: {b2:5d} | lm loss: {l:.6E} | loss scale: 1.0 | grad norm: {g:.3f} | number of skipped iterations:   0 | number of nan iterations:   0 |",
        "*[Rank {r}] (after {i} iterations) memory (MB) | allocated: {m:.2f} | max allocated: {m2:.2f} | reserved: {m3:.1f} | max reserved: {m3:.1f}",
        "* validation loss at iteration {i} | lm loss value: {l:.6E} | lm loss PPL: {f:.6E} | ",
        "*saving checkpoint at iteration {i:7d} to /data/ckpt/llama",
        "*  successfully saved checkpoint at iteration {i:7d} to /data/ckpt/llama",
        "*time (ms) | forward-backward: {f:.2f} | optimizer: {t:.2f} | batch-generator: {g:.2f}",
        "  tensor_model_parallel_size ...................... {z}",
        "  pipeline_model_parallel_size .................... {z}",
        "  micro_batch_size ................................ {b}",
        "  seq_length ...................................... 4096",
        "  num_attention_heads ............................. 32",
        "  hidden_size ..................................... 4096",
        "  ffn_hidden_size ................................. 11008",
        "  use_flash_attn .................................. True",
        "  bf16 ............................................ True",
        " > building {model} tokenizer ...",
        " > padded vocab (size: 32000) with 0 dummy tokens (new size: 32000)",
        " > number of parameters on (tensor, pipeline) model parallel rank ({r}, 0): {n}",
        "[after dataloaders are built] datetime: 2024-05-{d:02d} {hh:02d}:{mm:02d}:{ss:02d} ",
        " > finished creating GPT datasets ...",
        "    number of epochs: {b}",
        "    total number of samples: {c}",
    ),
    "vllm": (
        "*INFO {md} {hh:02d}:{mm:02d}:{ss:02d} metrics.py:{ln}] Avg prompt throughput: {t:.1f} tokens/s, Avg generation throughput: {t2:.1f} tokens/s, Running: {b} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {p}.{r}%, CPU KV cache usage: 0.0%.",
        "*INFO {md} {hh:02d}:{mm:02d}:{ss:02d} engine.py:{ln}] Added request cmpl-{hx}-0.",
        "*INFO {md} {hh:02d}:{mm:02d}:{ss:02d} engine.py:{ln}] Finished request cmpl-{hx}-0.",
        "*INFO:     127.0.0.1:{port} - \"POST /v1/completions HTTP/1.1\" 200 OK",
        "*INFO:     127.0.0.1:{port} - \"GET /v1/models HTTP/1.1\" 200 OK",
        "*INFO {md} {hh:02d}:{mm:02d}:{ss:02d} logger.py:{ln}] Received request chat-{hx}: prompt: '<|user|> hello', params: SamplingParams(n=1, temperature={g:.1f}, top_p=1.0, max_tokens={b2}), lora_request: None.",
        "INFO {md} {hh:02d}:{mm:02d}:{ss:02d} llm_engine.py:{ln}] Initializing an LLM engine (v0.6.{r}) with config: model='{org}/{model}', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size={z}, enforce_eager=False",
        "INFO {md} {hh:02d}:{mm:02d}:{ss:02d} model_runner.py:{ln}] Loading model weights took {g:.4f} GB",
        "INFO {md} {hh:02d}:{mm:02d}:{ss:02d} gpu_executor.py:{ln}] # GPU blocks: {c}, # CPU blocks: {n}",
        "INFO {md} {hh:02d}:{mm:02d}:{ss:02d} model_runner.py:{ln}] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static.",
        "INFO {md} {hh:02d}:{mm:02d}:{ss:02d} model_runner.py:{ln}] Graph capturing finished in {b} secs.",
        "INFO {md} {hh:02d}:{mm:02d}:{ss:02d} api_server.py:{ln}] vLLM API server version 0.6.{r}",
        "INFO {md} {hh:02d}:{mm:02d}:{ss:02d} selector.py:{ln}] Using ROCmFlashAttention backend.",
        "INFO:     Started server process [{port}]",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ),
    "comfyui": (
        "*got prompt",
        "*Prompt executed in {f:.2f} seconds",
        "*{p:3d}%|{bar}| {r}/20 [00:{ss:02d}<00:{mm:02d}, {it:.2f}it/s]",
        "model weight dtype torch.float16, manual cast: None",
        "model_type EPS",
        "Using pytorch attention in VAE",
        "Requested to load SDXLClipModel",
        "*Requested to load SDXL",
        "*Loading 1 new model",
        "*loaded completely 0.0 {m:.1f} True",
        "Total VRAM {m3:.0f} MB, total RAM {m2:.0f} MB",
        "pytorch version: 2.4.1+rocm6.1",
        "Set vram state to: NORMAL_VRAM",
        "Device: cuda:0 AMD Radeon RX 7900 XTX : native",
        "Starting server",
        "To see the GUI go to: http://127.0.0.1:8188",
        "Import times for custom nodes:",
        "   {f:.1f} seconds: /home/user/ComfyUI/custom_nodes/ComfyUI-Manager",
        "[Prompt Server] web root: /home/user/ComfyUI/web",
    ),
    "llamacpp": (
        "llama_model_loader: - kv  {r:2d}:                       llama.context_length u32              = 8192",
        "llama_model_loader: - kv  {r:2d}:                     llama.embedding_length u32              = 4096",
        "llama_model_loader: - type  f32:   {b2} tensors",
        "llm_load_print_meta: n_head           = 32",
        "llm_load_print_meta: model size       = {g:.2f} GiB ({f:.2f} BPW) ",
        "llm_load_tensors: offloaded {b}/33 layers to GPU",
        "llm_load_tensors:      ROCm0 buffer size =  {m:.2f} MiB",
        "llama_new_context_with_model: n_ctx      = 8192",
        "llama_kv_cache_init:      ROCm0 KV buffer size =  {m2:.2f} MiB",
        "llama_new_context_with_model:  ROCm_Host  output buffer size =     0.49 MiB",
        "llama_new_context_with_model: graph nodes  = 1030",
        "*slot launch_slot_: id  0 | task {i} | processing task",
        "*slot update_slots: id  0 | task {i} | prompt processing progress, n_past = {c}, n_tokens = {n}, progress = {g:.6f}",
        "*slot      release: id  0 | task {i} | stop processing: n_past = {c}, truncated = 0",
        "*prompt eval time =    {f:.2f} ms /   {b2} tokens (    {g:.2f} ms per token,   {t:.2f} tokens per second)",
        "*       eval time =   {f:.2f} ms /   {b2} runs   (   {g:.2f} ms per token,    {t:.2f} tokens per second)",
        "*srv  update_slots: all slots are idle",
        "*request: POST /completion 127.0.0.1 200",
    ),
    "pip": (
        "*Collecting {pkg}>={r}.0",
        "*  Downloading {pkg}-{r}.{z}.{b}-py3-none-any.whl.metadata ({g:.1f} kB)",
        "*  Downloading {pkg}-{r}.{z}.{b}-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl ({g:.1f} MB)",
        "*     ---------------------------------------- {g:.1f}/{g2:.1f} MB {t:.1f} MB/s eta 0:00:00",
        "*Requirement already satisfied: {pkg} in ./venv/lib/python3.10/site-packages (from -r requirements.txt (line {b})) ({r}.{z}.{b})",
        "*Using cached {pkg}-{r}.{z}.{b}-py3-none-any.whl ({g:.0f} kB)",
        "*Building wheels for collected packages: {pkg}",
        "*  Building wheel for {pkg} (pyproject.toml) ... done",
        "*  Created wheel for {pkg}: filename={pkg}-{r}.{z}.{b}-py3-none-any.whl size={c} sha256={hx}{hx}",
        "*  Stored in directory: /home/user/.cache/pip/wheels/{hx8}",
        "*Successfully built {pkg}",
        "*Installing collected packages: {pkg}",
        "*  Attempting uninstall: {pkg}",
        "*    Found existing installation: {pkg} {r}.{z}.0",
        "*    Uninstalling {pkg}-{r}.{z}.0:",
        "*      Successfully uninstalled {pkg}-{r}.{z}.0",
        "*Successfully installed {pkg}-{r}.{z}.{b}",
        "Looking in indexes: https://download.pytorch.org/whl/rocm6.1",
    ),
    "apt": (
        "*Get:{b} http://archive.ubuntu.com/ubuntu jammy-updates/main amd64 {deb} amd64 {r}.{z}-{b}ubuntu0.{r} [{c} B]",
        "Hit:{b} http://security.ubuntu.com/ubuntu jammy-security InRelease",
        "Fetched {g:.1f} MB in {b}s ({t:.0f} kB/s)",
        "*Selecting previously unselected package {deb}.",
        "*Preparing to unpack .../{b}-{deb}_{r}.{z}-{b}_amd64.deb ...",
        "*Unpacking {deb} ({r}.{z}-{b}) ...",
        "*Setting up {deb} ({r}.{z}-{b}) ...",
        "*Processing triggers for man-db (2.10.2-1) ...",
        "*Processing triggers for libc-bin (2.35-0ubuntu3.{r}) ...",
        "Reading package lists... Done",
        "Building dependency tree... Done",
        "Reading state information... Done",
        "The following NEW packages will be installed:",
        "  {deb} {deb} {deb}",
        "0 upgraded, {b} newly installed, 0 to remove and {z} not upgraded.",
        "Need to get {g:.1f} MB of archives.",
        "After this operation, {c} kB of additional disk space will be used.",
        "(Reading database ... {c} files and directories currently installed.)",
    ),
    "dmesg": (
        "*[{ts:12.6f}] pci 0000:{bus:02x}:00.0: [{ven}:{dev}] type 00 class 0x{cls:06x}",
        "*[{ts:12.6f}] pci 0000:{bus:02x}:00.0: reg 0x{reg:x}: [mem 0x{hx8}-0x{hx8} 64bit pref]",
        "*[{ts:12.6f}] usb {r}-{z}: new high-speed USB device number {b} using xhci_hcd",
        "*[{ts:12.6f}] usb {r}-{z}: New USB device found, idVendor={ven}, idProduct={dev}, bcdDevice= 1.00",
        "[{ts:12.6f}] EXT4-fs (nvme0n1p{z}): mounted filesystem with ordered data mode. Quota mode: none.",
        "[{ts:12.6f}] systemd[1]: Started Journal Service.",
        "[{ts:12.6f}] systemd[1]: Mounted Kernel Debug File System.",
        "*[{ts:12.6f}] audit: type=1400 audit({ts:.3f}:{b}): apparmor=\"STATUS\" operation=\"profile_load\" profile=\"unconfined\" name=\"snap-update-ns.{deb}\" pid={port} comm=\"apparmor_parser\"",
        "[{ts:12.6f}] e1000e 0000:00:1f.6 eno1: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx",
        "[{ts:12.6f}] IPv6: ADDRCONF(NETDEV_CHANGE): eno1: link becomes ready",
        "[{ts:12.6f}] nvme nvme0: {b}/0/0 default/read/poll queues",
        "*[{ts:12.6f}] input: Logitech USB Receiver as /devices/pci0000:00/0000:00:14.0/usb1/1-{z}/input/input{b}",
        "[{ts:12.6f}] Bluetooth: hci0: Firmware revision 0.0 build {c} week {b} 2023",
        "[{ts:12.6f}] intel_rapl_common: Found RAPL domain package",
        "[{ts:12.6f}] snd_hda_intel 0000:00:1f.3: enabling device (0000 -> 0002)",
        "[{ts:12.6f}] wlp3s0: associated",
        "*[{ts:12.6f}] loop{b}: detected capacity change from 0 to {c}",
        "[{ts:12.6f}] Memory: {c}K/{n}K available ({b}K kernel code, {b2}K rwdata, {c}K rodata, {b}K init)",
        "[{ts:12.6f}] smpboot: Allowing {b2} CPUs, 0 hotplug CPUs",
    ),
}
HELD_OUT = ("megatron", "llamacpp", "apt")
TABLE_KINDS = tuple(k for k in KINDS if k not in HELD_OUT)

_ORGS = ("meta-llama", "mistralai", "Qwen", "google", "microsoft", "tiiuae")
_MODELS = ("Llama-3-8B", "Mistral-7B-v0.3", "Qwen2-7B", "gemma-2b", "phi-2", "falcon-7b")
_PKGS = ("numpy", "requests", "tqdm", "safetensors", "tokenizers", "accelerate", "einops", "sentencepiece", "pyyaml", "filelock")
_DEBS = ("libgomp1", "libnuma1", "python3-venv", "build-essential", "cmake", "libssl-dev", "zstd", "git-lfs")


def _fields(i: int, rng: random.Random) -> dict[str, object]:
    p = rng.randrange(101)
    return {
        "i": i,
        "n": 50000 + i % 7 * 1000,
        "c": i * 256 + rng.randrange(256),
        "l": rng.random() * 3,
        "g": rng.random() * 60,
        "g2": rng.random() * 80,
        "lr": rng.random() * 1e-4,
        "ep": i / 3000,
        "f": rng.random() * 2000,
        "t": rng.random() * 900,
        "t2": rng.random() * 900,
        "it": rng.random() * 20,
        "p": p,
        "bar": ("#" * (p // 10)).ljust(10),
        "r": i % 8,
        "z": rng.randrange(1, 5),
        "b": rng.randrange(1, 64),
        "b2": rng.randrange(64, 1024),
        "m": rng.random() * 20000,
        "m2": rng.random() * 40000,
        "m3": rng.random() * 65536,
        "mm": i // 60 % 60,
        "mm2": rng.randrange(60),
        "ss": i % 60,
        "ms": rng.randrange(1000),
        "hh": i // 3600 % 24,
        "d": 1 + i % 28,
        "md": f"05-{1 + i % 28:02d}",
        "date": f"2024-05-{1 + i % 28:02d}",
        "ln": rng.randrange(100, 4000),
        "hx": f"{rng.getrandbits(64):016x}",
        "hx8": f"{rng.getrandbits(32):08x}",
        "port": rng.randrange(1024, 65535),
        "ts": i * 0.0137,
        "bus": rng.randrange(256),
        "ven": f"{rng.getrandbits(16):04x}",
        "dev": f"{rng.getrandbits(16):04x}",
        "cls": rng.getrandbits(24),
        "reg": 16 + 4 * rng.randrange(6),
        "org": _ORGS[i % len(_ORGS)],
        "model": _MODELS[i % len(_MODELS)],
        "pkg": _PKGS[rng.randrange(len(_PKGS))],
        "deb": _DEBS[rng.randrange(len(_DEBS))],
    }


def lines(kind: str, count: int, seed: int = 1) -> list[str]:
    """``count`` lines of chatter of one kind: its head once, then body lines at random."""
    rng = random.Random(f"{kind}:{seed}")
    head = [t for t in KINDS[kind] if not t.startswith("*")]
    body = [t[1:] for t in KINDS[kind] if t.startswith("*")]
    out = [t.format(**_fields(i, rng)) for i, t in enumerate(head)]
    out += [body[rng.randrange(len(body))].format(**_fields(i, rng)) for i in range(len(out), count)]
    return out


def make_log(path: Path, kind: str, size: int, last: str = "") -> int:
    """A log of about ``size`` bytes of one kind (its head, then a block of body lines
    repeated), ``last`` as its last line."""
    head = len([t for t in KINDS[kind] if not t.startswith("*")])
    first = lines(kind, 20000 + head)
    block = ("\n".join(first[head:]) + "\n").encode()
    with path.open("wb") as fh:
        start = ("\n".join(first[:head]) + "\n").encode()
        fh.write(start)
        written = len(start)
        while written + len(block) < size:
            fh.write(block)
            written += len(block)
        rest = size - written - (len(last) + 1 if last else 0)
        if rest > 0:
            cut = block.rfind(b"\n", 0, rest) + 1
            fh.write(block[:cut])
            written += cut
        if last:
            fh.write((last + "\n").encode())
            written += len(last) + 1
    return written


def chatter_table(kinds: tuple[str, ...] = TABLE_KINDS, runs: int = 10) -> tuple[list[str], int]:
    """The distinct lines of ``runs`` runs of 2,000 lines of each kind, through
    ``rocmfix.extract.chatter_norm`` (numbers and hex ids as "0"), and how many bytes were read."""
    rows, size, _raw = _table(kinds, runs)
    return rows, size


def chatter_raw(kinds: tuple[str, ...] = TABLE_KINDS, runs: int = 10) -> list[str]:
    """For each line of :func:`chatter_table`, in its order, the first generated line that
    gives it, as printed (``src/rocmfix/data/chatter-raw.txt``: stage 1 tries a regex
    stand-in on these, where digits and case still read as in a log)."""
    return _table(kinds, runs)[2]


def _table(kinds: tuple[str, ...], runs: int) -> tuple[list[str], int, list[str]]:
    from rocmfix.extract import chatter_norm  # noqa: PLC0415 - only for --table

    first: dict[str, str] = {}
    size = 0
    for kind in kinds:
        for run in range(runs):
            for line in lines(kind, 2000, seed=7 + run):
                size += len(line) + 1
                first.setdefault(chatter_norm(line), line)
    rows = sorted(first)
    return rows, size, [first[r] for r in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", action="store_true", help="rewrite src/rocmfix/data/chatter-lines.txt and chatter-raw.txt")
    ap.add_argument("--kind", choices=sorted(KINDS))
    ap.add_argument("--mb", type=int, default=256)
    ap.add_argument("out", nargs="?", type=Path)
    args = ap.parse_args()
    if args.table:
        rows, size = chatter_table()
        out = Path(__file__).resolve().parents[1] / "src" / "rocmfix" / "data" / "chatter-lines.txt"
        head = (
            "# distinct lines of ordinary log chatter, lower-cased, numbers and hex ids as 0: written by\n"
            f"# benchmarks/chatter.py --table from {size / 1e6:.1f} MB of generated lines of the kinds\n"
            f"# {', '.join(TABLE_KINDS)} (held out: {', '.join(HELD_OUT)}); read by rocmfix.extract._rare\n"
        )
        out.write_text(head + "\n".join(rows) + "\n")
        print(f"{len(rows)} distinct lines from {size / 1e6:.1f} MB -> {out}")
        raw = out.with_name("chatter-raw.txt")
        raw.write_text(
            "# for each line of chatter-lines.txt, in its order, the first generated line that gives it, as\n"
            "# printed: written by benchmarks/chatter.py --table; read by rocmfix.extract._tail_stand_in\n"
            + "\n".join(chatter_raw())
            + "\n"
        )
        print(f"{len(rows)} raw lines -> {raw}")
        return 0
    if args.kind and args.out:
        n = make_log(args.out, args.kind, args.mb * 1024 * 1024)
        print(f"{n} bytes of {args.kind} chatter -> {args.out}")
        return 0
    ap.error("--table, or --kind KIND OUT")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
