"""Chinese wording of the core's results: check titles and summaries, verify stages,
fix-plan lines, risk levels and statuses.

The core stays plain: probes, verify and actions produce English text with the
values filled in, as before. The render layer (the CLI and the screens) passes
that text through here in a Chinese session. Titles, stages and risks are
looked up by id; summaries and plan lines are matched by shape like the
error messages (``rocmfix.i18n_errors``), keeping every value (paths, gfx
targets, versions, commands) as it was. A text with no entry stays English:
it is still true, only not translated. English output is never touched.
"""

from __future__ import annotations

import re

from rocmfix.i18n_errors import _fw, _rx, translate

__all__ = ["PLAN", "RISK_ZH", "STAGES_ZH", "STATUS_ZH", "SUMMARIES", "TITLES_ZH"]
__all__ += ["VERIFY_DETAILS", "plan_line", "risk", "stage", "summary", "title", "verify_detail"]

TITLES_ZH: dict[str, str] = {
    "device-nodes": "GPU 设备节点",
    "user-groups": "render 和 video 用户组",
    "kfd-processes": "占用 GPU 的进程",
    "amdgpu-module": "amdgpu 内核驱动",
    "dkms-status": "amdgpu-dkms 构建",
    "kernel-log": "内核日志",
    "env-hsa-override": "HSA_OVERRIDE_GFX_VERSION",
    "env-visible-devices": "GPU 可见性变量",
    "env-other": "其他 ROCm 环境变量",
    "gpu-list": "AMD 显卡",
    "integrated-gpu": "独立显卡旁的集成显卡",
    "pcie-link": "PCIe 链路",
    "rocm-install": "ROCm 安装",
    "rocminfo": "rocminfo",
    "rocm-libraries": "ROCm 库的解析",
    "math-libs-for-gfx": "该 GPU 的 rocBLAS / hipBLASLt 内核",
    "miopen-cache": "MIOpen 用户数据库和内核缓存",
    "compiler-headers": "hipcc / 运行时编译所需的 C++ 头文件",
    "os-info": "操作系统",
    "wsl": "WSL（Windows 子系统）",
    "container": "容器",
    "kernel-params": "内核启动参数",
    "secure-boot": "安全启动（Secure Boot）",
    "shm-size": "共享内存（/dev/shm）",
    "gpu-manager": "Ubuntu 的 gpu-manager",
    "memory": "内存和交换空间",
    "torch-build": "PyTorch 构建",
    "gpu-arch-vs-torch": "GPU gfx 与 torch、运行时和数学库",
    "torch-rocm-vs-system": "torch 的 ROCm 与系统 ROCm",
    "python-version": "Python 版本与 ROCm wheel",
    "amdsmi-bindings": "amdsmi Python 绑定",
    "triton": "torch.compile 所需的 Triton",
}

STAGES_ZH: dict[str, str] = {
    "import": "导入 torch",
    "init": "运行时初始化",
    "enumerate": "枚举设备",
    "alloc": "分配显存",
    "copy": "主机/设备拷贝",
    "matmul": "小矩阵乘法（对照 CPU float64）",
    "dtypes": "fp32/fp16/bf16 矩阵乘法",
    "perf": "计时的大矩阵乘法",
    "conv": "conv2d 块前向+反向（MIOpen）",
    "train": "训练一步（autocast+GradScaler）",
    "sync": "同步",
    "allreduce": "跨 GPU all-reduce",
    "pg": "nccl 进程组 + all-reduce",
    "compile": "torch.compile 编译（Inductor/Triton）",
    "memory": "填满大部分空闲显存",
}

RISK_ZH: dict[str, str] = {"low": "低", "medium": "中", "high": "高"}
# A journal record's status (rocmfix.actions.journal), as `history` shows it.
JOURNAL_STATUS_ZH: dict[str, str] = {
    "applied": "已应用",
    "incomplete": "未完成",
    "undone": "已撤销",
    "rolled-back": "已回滚",
    "damaged": "已损坏",
}
STATUS_ZH: dict[str, str] = {
    "ok": "正常",
    "warn": "警告",
    "fail": "失败",
    "error": "无法运行",
    "skip": "跳过",
}

def _specific_first(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The table, the shape with the most fixed text first: ``{n} GPU(s): {gfx}`` must not
    swallow ``torch {v}, HIP {hip}, {n} GPU(s): {gpus}``."""
    fixed = {en: len(re.sub(r"\{\w+\}", "", en)) for en, _ in pairs}
    ordered = sorted(pairs, key=lambda pair: -fixed[pair[0]])
    return tuple((_rx(en), _fw(zh)) for en, zh in ordered)


SUMMARIES: tuple[tuple[re.Pattern[str], str], ...] = _specific_first(
    (
        ("{os}, kernel {k}", "{os},内核 {k}"),
        ("not running under WSL", "不在 WSL 中运行"),
        ("not inside a container", "不在容器中"),
        ("amdgpu loaded (inbox kernel driver)", "amdgpu 已加载(内核自带驱动)"),
        ("amdgpu loaded (amdgpu-dkms {v})", "amdgpu 已加载(amdgpu-dkms {v})"),
        ("{what} was not recorded in this snapshot", "这个快照没有记录 {what}"),
        ("the kernel log was not recorded in this snapshot", "这个快照没有记录内核日志"),
        ("no amdgpu or iommu overrides", "没有 amdgpu 或 iommu 的覆盖参数"),
        ("Secure Boot state cannot be read", "无法读取安全启动状态"),
        ("Secure Boot is off", "安全启动已关闭"),
        ("{n} GPU(s): {gfx}", "{n} 块 GPU:{gfx}"),
        ("only discrete GPU(s)", "只有独立显卡"),
        ("only integrated GPU(s)", "只有集成显卡"),
        ("no GPU", "没有 GPU"),
        (
            "full-width links (speed may drop at idle; that is power saving)",
            "链路为全宽(空闲时速度可能下降,那是节能)",
        ),
        ("/dev/kfd and {n} render node(s) open read-write", "/dev/kfd 和 {n} 个 render 节点可读写打开"),
        (
            "/dev/kfd and {n} render node(s) exist; whether they open was not recorded",
            "/dev/kfd 和 {n} 个 render 节点存在;没有记录它们能否打开",
        ),
        (
            "/dev/kfd opens; the render nodes were not recorded in this snapshot",
            "/dev/kfd 能打开;这个快照没有记录 render 节点",
        ),
        ("{user} is in {groups} (this session too)", "{user} 在 {groups} 组中(当前会话也是)"),
        (
            "{user} is in {groups} (this session too); /dev/kfd refuses anyway, so groups are not"
            " the cause",
            "{user} 在 {groups} 组中(当前会话也是);/dev/kfd 仍然拒绝访问,所以原因不在用户组",
        ),
        ("no process holds /dev/kfd", "没有进程占用 /dev/kfd"),
        ("amdgpu-dkms is {state} for the running kernel {k}", "amdgpu-dkms 对正在运行的内核 {k} 的状态是 {state}"),
        ("no visibility variable set", "没有设置可见性变量"),
        ("not set", "未设置"),
        ("{n} related variable(s), nothing suspicious", "{n} 个相关变量,没有可疑之处"),
        ("{n} related variable(s); LD_LIBRARY_PATH adds {p}", "{n} 个相关变量;LD_LIBRARY_PATH 添加了 {p}"),
        ("torch uses its own bundled ROCm libraries", "torch 使用它自带的 ROCm 库"),
        (
            "no system ROCm (fine: ROCm PyTorch wheels bundle their libraries)",
            "没有系统 ROCm(没关系:ROCm 版 PyTorch wheel 自带这些库)",
        ),
        ("rocminfo is not installed (not needed by pip wheels)", "没有安装 rocminfo(pip wheel 不需要它)"),
        (
            "no libamdhip64 on the library path (torch not probed; ROCm wheels bring their own)",
            "库路径上没有 libamdhip64(未探测 torch;ROCm wheel 自带)",
        ),
        ("MIOpen caches are writable or not created yet", "MIOpen 缓存可写,或尚未创建"),
        ("no rocBLAS library folder found", "没有找到 rocBLAS 库文件夹"),
        ("rocBLAS has no Tensile kernels for {gfx} in {p}", "{p} 中的 rocBLAS 没有 {gfx} 的 Tensile 内核"),
        ("no GCC installation under {p}", "{p} 下没有 GCC"),
        ("/dev/shm is {size}", "/dev/shm 为 {size}"),
        (
            "/dev/shm is {size}: DataLoader workers may die with a bus error",
            "/dev/shm 只有 {size}:DataLoader 的 worker 可能因总线错误(bus error)而退出",
        ),
        ("systemd is not available here", "这里没有 systemd"),
        ("RAM {ram} ({free} free), swap {swap}", "内存 {ram}(空闲 {free}),交换空间 {swap}"),
        ("torch {v}, HIP {hip}, {n} GPU(s): {gpus}", "torch {v},HIP {hip},{n} 块 GPU:{gpus}"),
        ("torch has no kernels for {gfx}", "torch 没有 {gfx} 的内核"),
        (
            "HSA_OVERRIDE_GFX_VERSION makes {gfx} run as {other}, which torch does not have",
            "HSA_OVERRIDE_GFX_VERSION 让 {gfx} 以 {other} 运行,而 torch 没有它的内核",
        ),
        ("the {index} wheels target it natively", "{index} 的 wheel 原生支持它"),
        ("{v} runs it as {gfx}, which the plan's torch has", "{v} 让它以 {gfx} 运行,计划中的 torch 有它的内核"),
        ("torch brings ROCm {v}; no system ROCm to conflict", "torch 自带 ROCm {v};没有会与之冲突的系统 ROCm"),
        ("Python {v} has ROCm wheels", "Python {v} 有 ROCm wheel"),
        (
            "amdsmi is not installed (only torch's GPU utilisation/memory queries use it)",
            "没有安装 amdsmi(只有 torch 查询 GPU 利用率和显存时会用到)",
        ),
        ("{pkg} {v} with the AMD backend", "{pkg} {v},带 AMD 后端"),
        ("torch not probed (--no-torch)", "未探测 torch(--no-torch)"),
        ("skipped: torch not probed (--no-torch)", "已跳过:未探测 torch(--no-torch)"),
        # fix lines the checks suggest
        (
            "Use a ROCm/PyTorch build that includes this gfx, or an HSA_OVERRIDE_GFX_VERSION the gfx"
            " table names.",
            "请使用包含这个 gfx 的 ROCm/PyTorch 构建,或使用 gfx 表中给出的 HSA_OVERRIDE_GFX_VERSION。",
        ),
        ("Then: {cmd}", "然后:{cmd}"),
        # seen on the recorded machines of tests/data/host, most frequent first
        ("cannot read the size of /dev/shm", "无法读取 /dev/shm 的大小"),
        ("memory information is not available", "无法获得内存信息"),
        ("who holds /dev/kfd was not recorded", "没有记录谁占用了 /dev/kfd"),
        ("cannot read /proc/cmdline", "无法读取 /proc/cmdline"),
        ("the ROCm install directories were not recorded", "没有记录 ROCm 的安装目录"),
        ("no discrete GPU with a PCI device in sysfs", "sysfs 中没有带 PCI 设备的独立显卡"),
        ("ROCm {v} at {p}", "ROCm {v},位于 {p}"),
        ("/dev/kfd absent", "没有 /dev/kfd"),
        ("/dev/kfd absent (no AMD GPU here)", "没有 /dev/kfd(这里没有 AMD GPU)"),
        ("link speed and width are not readable", "无法读取链路速度和宽度"),
        ("not Ubuntu", "不是 Ubuntu"),
        ("libamdhip64 resolves to {p}", "libamdhip64 解析为 {p}"),
        ("rocBLAS kernels for {gfx} present", "有 {gfx} 的 rocBLAS 内核"),
        ("{gfx} runs as {other}; torch and rocBLAS have it", "{gfx} 以 {other} 运行;torch 和 rocBLAS 都有它的内核"),
        ("via HSA_OVERRIDE_GFX_VERSION={v}", "通过 HSA_OVERRIDE_GFX_VERSION={v}"),
        ("torch and the system both use ROCm {v}", "torch 和系统都使用 ROCm {v}"),
        ("which triton is installed was not recorded", "没有记录安装了哪个 triton"),
        ("whether amdsmi imports was not recorded", "没有记录 amdsmi 能否导入"),
        ("torch probe failed: {why}", "torch 探测失败:{why}"),
        ("probing torch failed: {why}", "torch 探测失败:{why}"),
        (
            "ROCm at {p}, but no version file records which release it is",
            "ROCm 位于 {p},但没有版本文件记录它是哪个版本",
        ),
        (
            "WSL: the GPU is reached through /dev/dxg; /dev/kfd is absent by design",
            "WSL:GPU 经由 /dev/dxg 访问;没有 /dev/kfd 是设计如此",
        ),
        ("WSL: the GPU driver is the Windows one", "WSL:GPU 驱动是 Windows 的驱动"),
        ("WSL: GPUs are not listed in sysfs (see the wsl check)", "WSL:sysfs 中不列出 GPU(见 wsl 检查)"),
        ("WSL: no /dev/kfd by design (the GPU is /dev/dxg)", "WSL:按设计没有 /dev/kfd(GPU 是 /dev/dxg)"),
        ("WSL: group membership does not gate /dev/dxg", "WSL:/dev/dxg 不受用户组限制"),
        ("torch is a {flavour} build", "torch 是 {flavour} 构建"),
        ("not needed by a {flavour} build", "{flavour} 构建不需要它"),
        ("rocminfo cannot open /dev/kfd: {why}", "rocminfo 无法打开 /dev/kfd:{why}"),
        ("permission denied", "没有权限"),
        ("operation not permitted", "不允许的操作"),
        ("no /dev/kfd node", "没有 /dev/kfd 节点"),
        ("KFD has no device for the GPU (ENOMEM)", "KFD 中没有这块 GPU 的设备(ENOMEM)"),
        ("KFD has no device for the GPU (ENODEV)", "KFD 中没有这块 GPU 的设备(ENODEV)"),
        ("the kernel refused the open (EINVAL)", "内核拒绝了打开(EINVAL)"),
        ("running as root", "以 root 身份运行"),
        ("running as root; /dev/kfd refuses anyway (not a group matter)", "以 root 身份运行;/dev/kfd 仍然拒绝(与用户组无关)"),
        (
            "root in a container: access to /dev/kfd is decided by how it was started",
            "容器中的 root:能否访问 /dev/kfd 取决于容器的启动方式",
        ),
        (
            "rocminfo: the HSA runtime did not start (HSA_STATUS_ERROR_OUT_OF_RESOURCES)",
            "rocminfo:HSA 运行时没有启动(HSA_STATUS_ERROR_OUT_OF_RESOURCES)",
        ),
        (
            "rocminfo: the amdgpu (ROCk) module is not loaded or not live",
            "rocminfo:amdgpu(ROCk)模块没有加载或不可用",
        ),
        ("{n} GPU agent(s): {gfx}", "{n} 个 GPU agent:{gfx}"),
        ("{n} GPU agent(s): {gfx}; KFD node(s) {nodes} are not among them", "{n} 个 GPU agent:{gfx};其中没有 KFD 节点 {nodes}"),
        ("amdgpu kernel module is not loaded", "没有加载 amdgpu 内核模块"),
        ("{gpu} on the PCI bus but no KFD compute node", "PCI 总线上有 {gpu},但没有 KFD 计算节点"),
        ("ROCm {v} from the distribution's packages (/usr)", "ROCm {v},来自发行版的软件包(/usr)"),
        ("amdgpu-dkms installed for {k}", "已为 {k} 安装 amdgpu-dkms"),
        ("KFD registered the integrated GPU as a discrete one", "KFD 把集成显卡登记成了独立显卡"),
        ("rocminfo lists no GPU agent (exit {n})", "rocminfo 没有列出 GPU agent(退出码 {n})"),
        ("rocminfo under WSL lists no GPU agent", "WSL 下的 rocminfo 没有列出 GPU agent"),
        ("torch {v} (ROCm) sees no GPU", "torch {v}(ROCm)看不到 GPU"),
        ("torch {v} (ROCm) sees no GPU: {why}", "torch {v}(ROCm)看不到 GPU:{why}"),
        ("torch {v} (ROCm) sees no GPU under WSL", "torch {v}(ROCm)在 WSL 下看不到 GPU"),
        ("{user} is not in {groups}", "{user} 不在 {groups} 组中"),
        ("interpreter not probed", "没有探测解释器"),
        ("/dev/kfd does not exist: the amdgpu/KFD driver is not loaded", "/dev/kfd 不存在:没有加载 amdgpu/KFD 驱动"),
        (
            "{gpus}, which no current ROCm supports; KFD did not register it",
            "{gpus},目前没有任何 ROCm 支持它;KFD 没有登记它",
        ),
        (
            "{gpus}, which no current ROCm supports; KFD did not register them",
            "{gpus},目前没有任何 ROCm 支持它们;KFD 没有登记它们",
        ),
        ("AMD GPU at {slot} is {name}", "位于 {slot} 的 AMD GPU 是 {name}"),
        (
            "{user} was added to render but this session predates it (log out and in)",
            "{user} 已加入 render 组,但当前会话早于这次更改(请注销后重新登录)",
        ),
        (
            "LD_LIBRARY_PATH puts {p} ahead of torch's bundled ROCm libraries",
            "LD_LIBRARY_PATH 把 {p} 排在 torch 自带的 ROCm 库之前",
        ),
        ("torch built for ROCm {v} but system ROCm {w} is loaded first", "torch 为 ROCm {v} 构建,但先加载了系统的 ROCm {w}"),
        ("torch loaded {lib} from {p}, not its own", "torch 从 {p} 加载了 {lib},而不是它自带的"),
        ("amdgpu-dkms is installed for {k}, but amdgpu is not loaded", "已为 {k} 安装 amdgpu-dkms,但没有加载 amdgpu"),
        # device access, containers, Secure Boot
        ("cannot open {nodes}: {why}", "无法打开 {nodes}:{why}"),
        ("cannot open {nodes}: no although {user} is in its group", "无法打开 {nodes},尽管 {user} 在它的用户组中"),
        ("no ({e}: {s})", "失败({e}:{s})"),
        ("no ({e})", "失败({e})"),
        ("cannot open {nodes} read-write as {user}", "无法以 {user} 身份读写打开 {nodes}"),
        ("cannot open {nodes} read-write as {user} (permission denied)", "无法以 {user} 身份读写打开 {nodes}(没有权限)"),
        (
            "cannot open {nodes} read-write as {user}, although this process is in the nodes' group",
            "无法以 {user} 身份读写打开 {nodes},尽管这个进程在这些节点的用户组中",
        ),
        (
            "cannot open {nodes} read-write as {user} (permission denied), although this process is"
            " in the nodes' group",
            "无法以 {user} 身份读写打开 {nodes}(没有权限),尽管这个进程在这些节点的用户组中",
        ),
        ("/dev/kfd exists but KFD has no usable GPU behind it (open: {e})", "/dev/kfd 存在,但 KFD 后面没有可用的 GPU(打开:{e})"),
        (
            "/dev/kfd does not exist: the {kind} container was started without --device /dev/kfd",
            "/dev/kfd 不存在:{kind} 容器启动时没有加 --device /dev/kfd",
        ),
        ("{kind} container started without {what}", "{kind} 容器启动时没有传入 {what}"),
        (
            "{kind} container started without /dev/kfd and /dev/dri render nodes",
            "{kind} 容器启动时没有传入 /dev/kfd 和 /dev/dri 的 render 节点",
        ),
        ("{kind} container started without /dev/dri render nodes", "{kind} 容器启动时没有传入 /dev/dri 的 render 节点"),
        ("{kind} container has {nodes} but cannot open it ({e})", "{kind} 容器中有 {nodes},但无法打开({e})"),
        ("{kind} container has {nodes} but cannot open them ({e})", "{kind} 容器中有 {nodes},但都无法打开({e})"),
        (
            "{kind} container with /dev/kfd and {n} render node(s) that open read-write",
            "{kind} 容器中有 /dev/kfd 和 {n} 个可读写打开的 render 节点",
        ),
        (
            "Secure Boot is on and amdgpu is not loaded although amdgpu-dkms is built for this kernel:"
            " the unsigned module is refused",
            "安全启动已开启,amdgpu-dkms 已为这个内核构建,但 amdgpu 没有加载:未签名的模块被拒绝",
        ),
        (
            "Secure Boot is on and the amdgpu-dkms module is loaded (signed with an enrolled key)",
            "安全启动已开启,amdgpu-dkms 模块已加载(用已登记的密钥签名)",
        ),
        (
            "Secure Boot is on: an out-of-tree amdgpu-dkms module must be signed",
            "安全启动已开启:树外的 amdgpu-dkms 模块必须签名",
        ),
        ("Secure Boot is on; the inbox amdgpu driver is signed", "安全启动已开启;内核自带的 amdgpu 驱动已签名"),
        # the kernel log: what each line means, "(Nx)" times, and the chip's note
        *(
            pair
            for en, zh in (
                ("GPU ring timeout (a hung job)", "GPU ring 超时(任务卡住)"),
                ("GPU reset", "GPU 重置"),
                ("firmware failed to load", "固件加载失败"),
                ("KFD could not create a process's GPU address space", "KFD 无法为进程创建 GPU 地址空间"),
                ("amdgpu failed to initialise the GPU", "amdgpu 初始化 GPU 失败"),
                (
                    "the kernel refused an unsigned amdgpu module (Secure Boot)",
                    "内核拒绝了未签名的 amdgpu 模块(安全启动)",
                ),
                ("KFD does not support this GPU", "KFD 不支持这块 GPU"),
                ("this kernel's KFD has no entry for the GPU's device id", "这个内核的 KFD 中没有这块 GPU 的设备 id"),
                ("KFD did not take the GPU (kgd2kfd_probe failed)", "KFD 没有接纳这块 GPU(kgd2kfd_probe 失败)"),
                ("KFD skipped the GPU: the PCIe path lacks atomics", "KFD 跳过了这块 GPU:PCIe 路径不支持原子操作"),
            )
            for pair in (
                (en + " ({n}x)", zh + "({n} 次)"),
                (en + " ({n}x) ({why})", zh + "({n} 次)({why})"),
            )
        ),
        ("{gfx}: no current ROCm supports it", "{gfx}:目前没有任何 ROCm 支持它"),
        (
            "the GPU is newer than this kernel's KFD (a newer kernel or amdgpu-dkms adds it)",
            "这块 GPU 比这个内核的 KFD 新(更新的内核或 amdgpu-dkms 会加入它)",
        ),
        # the GPUs, their gfx and the ROCm that lists them
        (
            "{s}: current ROCm lists {names} as unsupported and no PyTorch ROCm wheel rocmfix knows"
            " of targets it",
            "{s}:当前 ROCm 把 {names} 列为不支持,rocmfix 知道的 PyTorch ROCm wheel 也都不支持它",
        ),
        (
            "{s}: current ROCm lists {names} as unsupported and no PyTorch ROCm wheel rocmfix knows"
            " of targets them",
            "{s}:当前 ROCm 把 {names} 列为不支持,rocmfix 知道的 PyTorch ROCm wheel 也都不支持它们",
        ),
        ("{s}: {gfx} is older than any GPU ROCm supports", "{s}:{gfx} 比 ROCm 支持的任何 GPU 都旧"),
        ("{s}: {gfx} are older than any GPU ROCm supports", "{s}:{gfx} 比 ROCm 支持的任何 GPU 都旧"),
        ("{s}: {gfx} is not in the gfx table", "{s}:{gfx} 不在 gfx 表中"),
        ("{s}: {gfx} are not in the gfx table", "{s}:{gfx} 不在 gfx 表中"),
        (
            "{s}: {gfx} is not in the gfx table ({newer} newer than any GPU it lists)",
            "{s}:{gfx} 不在 gfx 表中({newer} 比表中的任何 GPU 都新)",
        ),
        (
            "{s}: {gfx} are not in the gfx table ({newer} newer than any GPU it lists)",
            "{s}:{gfx} 不在 gfx 表中({newer} 比表中的任何 GPU 都新)",
        ),
        (
            "{s}; the {name} ({gfx}) at {slot} has no KFD node (KFD left it out)",
            "{s};位于 {slot} 的 {name}({gfx})没有 KFD 节点(KFD 没有接纳它)",
        ),
        (
            "{s}; the AMD GPU at {slot} has no KFD node (KFD left it out)",
            "{s};位于 {slot} 的 AMD GPU 没有 KFD 节点(KFD 没有接纳它)",
        ),
        ("{s}; {listing} have no KFD node (KFD left it out)", "{s};{listing} 没有 KFD 节点(KFD 没有接纳它们)"),
        (
            "iGPU {igpu} is enumerated beside the discrete {dgpu} and is not hidden",
            "集成显卡 {igpu} 与独立显卡 {dgpu} 一同被枚举,且没有被隐藏",
        ),
        ("iGPU {igpu} present but hidden by {how}", "有集成显卡 {igpu},但已被 {how} 隐藏"),
        (
            "the iGPU {gfx} (node {n}) is visible and torch has no kernels for it; HIP can then fail"
            " to load code for every device",
            "集成显卡 {gfx}(节点 {n})可见,而 torch 没有它的内核;HIP 可能因此无法为所有设备加载代码",
        ),
        (
            "ROCm {v} is older than the first release that supports {gfx} (node {n}, supported from ROCm {w})",
            "ROCm {v} 早于最早支持 {gfx} 的版本(节点 {n},从 ROCm {w} 起支持)",
        ),
        ("ROCm {v} is older than the first release that supports {named}", "ROCm {v} 早于最早支持 {named} 的版本"),
        ("ROCm {v} lists {named}, yet its runtime does not recognise it", "ROCm {v} 列出了 {named},但它的运行时不认识它"),
        (
            "the runtime could not create an agent for {named}; {nodes} do not open",
            "运行时无法为 {named} 创建 agent;{nodes} 打不开",
        ),
        (
            "the WSL runtime of ROCm {v} does not support this GPU ({rocr})",
            "ROCm {v} 的 WSL 运行时不支持这块 GPU({rocr})",
        ),
        (
            "rocminfo lists node {n} ({name}) as {gfx}, but the KFD reports {kfd}: an override"
            " relabels it as another GPU family",
            "rocminfo 把节点 {n}({name})列为 {gfx},但 KFD 报告的是 {kfd}:覆盖变量把它标成了另一个 GPU 家族",
        ),
        # library paths
        ("LD_LIBRARY_PATH puts {p} ahead of ROCm's own libraries", "LD_LIBRARY_PATH 把 {p} 排在 ROCm 自己的库之前"),
        (
            "LD_LIBRARY_PATH puts {p} (holds {lib}) ahead of ROCm's own libraries",
            "LD_LIBRARY_PATH 把 {p}(含有 {lib})排在 ROCm 自己的库之前",
        ),
        (
            "LD_LIBRARY_PATH puts {p} ahead of ROCm's own libraries, and rocminfo's runtime does not"
            " recognise a GPU its release lists",
            "LD_LIBRARY_PATH 把 {p} 排在 ROCm 自己的库之前,而 rocminfo 的运行时不认识它的版本列出的 GPU",
        ),
        (
            "no libamdhip64 on the library path (torch is a {flavour} build; ROCm wheels bring their own)",
            "库路径上没有 libamdhip64(torch 是 {flavour} 构建;ROCm wheel 自带)",
        ),
        ("torch loaded {lib} from {p}, not its own copy in {d}", "torch 从 {p} 加载了 {lib},而不是它自带的 {d} 中的那份"),
        (
            "torch built for ROCm {v} but system ROCm {w} is loaded first ({p})",
            "torch 为 ROCm {v} 构建,但先加载了系统的 ROCm {w}({p})",
        ),
        (
            "under WSL torch uses its bundled {lib}, not AMD's WSL runtime",
            "在 WSL 下 torch 使用它自带的 {lib},而不是 AMD 的 WSL 运行时",
        ),
        (
            "under WSL torch loads its bundled {p} instead of AMD's WSL runtime",
            "在 WSL 下 torch 加载了它自带的 {p},而不是 AMD 的 WSL 运行时",
        ),
        # torch builds and overrides
        ("torch {v} is a CPU-only build", "torch {v} 是只支持 CPU 的构建"),
        ("torch {v} is a CUDA build (CUDA {c})", "torch {v} 是 CUDA 构建(CUDA {c})"),
        ("torch {v} is a CUDA build (CUDA {c}) on an AMD GPU", "torch {v} 是 CUDA 构建(CUDA {c}),而这里是 AMD GPU"),
        (
            "torch {v} is a CUDA build running on {names} (not a ROCm setup)",
            "torch {v} 是运行在 {names} 上的 CUDA 构建(不是 ROCm 环境)",
        ),
        ("torch {v}, HIP {hip}, {n} GPU(s): ", "torch {v},HIP {hip},{n} 块 GPU"),
        ("{name}={v} names {gfx}'s own target; it does nothing", "{name}={v} 指定的就是 {gfx} 自己的目标;它不起任何作用"),
        (
            "{name}={v} makes {who} run as {target}, another GPU family: wrong-ISA code faults",
            "{name}={v} 让 {who} 以另一个 GPU 家族的 {target} 运行:指令集不符的代码会出错",
        ),
        (
            "{name}={v} makes {who} run as {target}, another GPU family: wrong-ISA code faults (use {ok})",
            "{name}={v} 让 {who} 以另一个 GPU 家族的 {target} 运行:指令集不符的代码会出错(请用 {ok})",
        ),
        (
            "{name}={v} stands in for {gfx} kernels this torch lacks, but {why}",
            "{name}={v} 替代了这个 torch 缺少的 {gfx} 内核,但{why}",
        ),
        (
            "wheels target {gfx} natively from torch {v} (verified)",
            "从 torch {v} 起 wheel 原生支持 {gfx}(已核实)",
        ),
        ("AMD calls the override a debugging aid", "AMD 把这个覆盖变量称为调试手段"),
        (
            "{gfx} runs as {other} only through HSA_OVERRIDE_GFX_VERSION={v}, which is not a verified"
            " override for it",
            "{gfx} 只能通过 HSA_OVERRIDE_GFX_VERSION={v} 以 {other} 运行,而这不是经过核实的覆盖值",
        ),
        # the checks' fix lines (shown on a failure and with -v)
        ("See the amdgpu-module and kernel-log checks.", "见 amdgpu-module 和 kernel-log 检查。"),
        ("Read the lines above in context: {cmd}", "请结合上下文阅读上面的行:{cmd}"),
        (
            "No driver setting or override makes this GPU work with current ROCm; use an older ROCm"
            " stack that supported it, or another GPU.",
            "没有任何驱动设置或覆盖变量能让这块 GPU 在当前 ROCm 上工作;请使用曾经支持它的旧版 ROCm,"
            "或换一块 GPU。",
        ),
        (
            "No driver setting makes KFD accept this GPU; use an older ROCm stack that supported it,"
            " or another GPU.",
            "没有任何驱动设置能让 KFD 接纳这块 GPU;请使用曾经支持它的旧版 ROCm,或换一块 GPU。",
        ),
        (
            "Current ROCm and PyTorch builds have no code for this GPU; use an older ROCm stack that"
            " supported it, or another GPU.",
            "当前的 ROCm 和 PyTorch 构建都没有这块 GPU 的代码;请使用曾经支持它的旧版 ROCm,或换一块 GPU。",
        ),
        (
            "Current ROCm and PyTorch wheels have no code for this GPU; only an older ROCm stack or a"
            " self-built PyTorch can use it (see gpu-arch-vs-torch when torch is probed).",
            "当前的 ROCm 和 PyTorch wheel 都没有这块 GPU 的代码;只有旧版 ROCm 或自行编译的 PyTorch"
            " 能用它(探测 torch 时见 gpu-arch-vs-torch)。",
        ),
        (
            "Reinstall ROCm (or remove the leftovers) so that one release is installed completely.",
            "重装 ROCm(或删除残留文件),让一个版本完整地安装好。",
        ),
        (
            "Use AMD's WSL ROCm runtime and a ROCm PyTorch wheel; ignore missing /dev/kfd.",
            "请使用 AMD 的 WSL ROCm 运行时和 ROCm 版 PyTorch wheel;没有 /dev/kfd 可以忽略。",
        ),
        (
            "Install torch, torchvision and torchaudio from the {index} index (`rocmfix fix"
            " reinstall-torch`, or by hand: {cmd}); `rocmfix install-plan` shows why.",
            "从 {index} 索引安装 torch、torchvision 和 torchaudio(`rocmfix fix reinstall-torch`,"
            "或手动:{cmd});`rocmfix install-plan` 会说明原因。",
        ),
        (
            "Install torch, torchvision and torchaudio from the {index} index (`rocmfix fix"
            " reinstall-torch`, or by hand: {cmd}); `rocmfix install-plan` shows why. Then unset {name}.",
            "从 {index} 索引安装 torch、torchvision 和 torchaudio(`rocmfix fix reinstall-torch`,"
            "或手动:{cmd});`rocmfix install-plan` 会说明原因。然后 `unset {name}`。",
        ),
        (
            "Read the device-nodes, user-groups and env-visible-devices checks.",
            "请阅读 device-nodes、user-groups 和 env-visible-devices 检查。",
        ),
        (
            "Put the GPU in a CPU-attached slot (not a chipset slot, riser or PCIe switch without"
            " atomics) on a CPU and board with PCIe 3.0 atomics, and check the BIOS; see {url}",
            "把 GPU 插在直连 CPU 的插槽上(不要用芯片组插槽、转接卡或不支持原子操作的 PCIe 交换芯片),"
            "CPU 和主板须支持 PCIe 3.0 原子操作,并检查 BIOS;参见 {url}",
        ),
        (
            "Inside a container this is fixed on the host, not here: restart it with {cmd}.",
            "在容器里这要在宿主机上修复,而不是在这里:请用 {cmd} 重新启动容器。",
        ),
        (
            "Install AMD's WSL ROCm runtime, then replace torch's bundled runtime with it: {cmd}",
            "安装 AMD 的 WSL ROCm 运行时,然后用它替换 torch 自带的运行时:{cmd}",
        ),
        (
            "sudo modprobe amdgpu; if that fails read {cmd} (blacklist, nomodeset, firmware).",
            "`sudo modprobe amdgpu`;如果失败,请查看 {cmd}(blacklist、nomodeset、firmware)。",
        ),
        ("sudo modprobe amdgpu and read the error it prints.", "运行 `sudo modprobe amdgpu` 并查看它打印的错误。"),
        ("Read the kernel-log check for amdgpu errors on that device.", "请在 kernel-log 检查中查看这个设备的 amdgpu 错误。"),
        (
            "Inside this container the devices' group is unmapped (it shows as nogroup), so no group"
            " change inside helps; restart it with {cmd} (crun runtime, as a user in the device's"
            " group on the host; containers/podman#10166).",
            "在这个容器里设备的用户组没有映射(显示为 nogroup),所以在容器里改用户组没有用;请用 {cmd}"
            " 重新启动它(crun 运行时,并以宿主机上属于设备用户组的用户运行;containers/podman#10166)。",
        ),
        (
            "Inside this container the devices' group is unmapped (it shows as nogroup), so no group"
            " change inside helps; restart it with a rootful {cmd}: rootless docker cannot map the"
            " host's device group.",
            "在这个容器里设备的用户组没有映射(显示为 nogroup),所以在容器里改用户组没有用;请用有 root"
            " 权限的 {cmd} 重新启动它:rootless docker 无法映射宿主机的设备用户组。",
        ),
        (
            "Check AMD's WSL compatibility list ({url}) for this card and Windows driver, and install"
            " a ROCm WSL release that lists it.",
            "请在 AMD 的 WSL 兼容列表({url})中查找这块显卡和 Windows 驱动,并安装列出了它的 ROCm WSL 版本。",
        ),
        (
            "Unset what you did not set on purpose (check ~/.bashrc and your job scripts).",
            "请 unset 不是你有意设置的变量(检查 ~/.bashrc 和作业脚本)。",
        ),
        (
            "Add yourself to the render and video groups (see user-groups), then log out and in.",
            "把自己加入 render 和 video 组(见 user-groups),然后注销并重新登录。",
        ),
        ("sudo usermod -aG render {user}, then log out and in.", "`sudo usermod -aG render {user}`,然后注销并重新登录。"),
        ("Install ROCm {v} or newer.", "请安装 ROCm {v} 或更新的版本。"),
        (
            "Enroll the DKMS signing key (sudo mokutil --import /var/lib/dkms/mok.pub, reboot, confirm"
            " the enrollment) or turn Secure Boot off in the firmware settings.",
            "登记 DKMS 签名密钥(`sudo mokutil --import /var/lib/dkms/mok.pub`,重启,确认登记),"
            "或在固件设置中关闭安全启动。",
        ),
        ("Load amdgpu (see the amdgpu-module check).", "加载 amdgpu(见 amdgpu-module 检查)。"),
        ("See the {id} check.", "见 {id} 检查。"),
        (
            "Log out and back in (or reboot); `newgrp render` works for one shell.",
            "注销并重新登录(或重启);`newgrp render` 只对一个 shell 有效。",
        ),
        (
            "Read the kernel-log and gpu-list checks for why KFD left the GPU out.",
            "请阅读 kernel-log 和 gpu-list 检查,了解 KFD 为什么没有接纳这块 GPU。",
        ),
        ("See the kernel-log check for why KFD skipped it.", "见 kernel-log 检查,了解 KFD 为什么跳过了它。"),
        ("Run `rocmfix doctor` on the host.", "请在宿主机上运行 `rocmfix doctor`。"),
        (
            "Unset LD_LIBRARY_PATH (or remove the ROCm entry) when running PyTorch wheels.",
            "运行 PyTorch wheel 时请 unset LD_LIBRARY_PATH(或删除其中的 ROCm 条目)。",
        ),
        (
            "In docker use --ipc=host or --shm-size 8G; or DataLoader(num_workers=0).",
            "在 docker 中使用 --ipc=host 或 --shm-size 8G;或者用 `DataLoader(num_workers=0)`。",
        ),
        (
            "Hide the iGPU: rocmfix fix hide-igpu (not a global HSA_OVERRIDE_GFX_VERSION, which would"
            " relabel the discrete GPU too).",
            "隐藏集成显卡:`rocmfix fix hide-igpu`(不要用全局的 HSA_OVERRIDE_GFX_VERSION,它也会改变独立显卡的标识)。",
        ),
        (
            "export ROCR_VISIBLE_DEVICES={v} (or disable the iGPU in the BIOS).",
            "`export ROCR_VISIBLE_DEVICES={v}`(或在 BIOS 中禁用集成显卡)。",
        ),
        (
            "torch has no code for a visible GPU: see gpu-arch-vs-torch and env-hsa-override.",
            "torch 没有某块可见 GPU 的代码:见 gpu-arch-vs-torch 和 env-hsa-override。",
        ),
        (
            "Run rocminfo in a clean shell (env -u LD_LIBRARY_PATH rocminfo); remove what your shell"
            " start-up files source.",
            "在干净的 shell 中运行 rocminfo(`env -u LD_LIBRARY_PATH rocminfo`);删掉 shell 启动文件 source 进来的设置。",
        ),
        (
            "Install the headers ({pkg}) and rerun `sudo dkms autoinstall`, or boot a kernel the driver"
            " supports.",
            "安装内核头文件({pkg})并重新运行 `sudo dkms autoinstall`,或启动驱动支持的内核。",
        ),
        (
            "See env-hsa-override: unset the global HSA_OVERRIDE_GFX_VERSION and set"
            " HSA_OVERRIDE_GFX_VERSION_<node> only for the GPU that needs it.",
            "见 env-hsa-override:unset 全局的 HSA_OVERRIDE_GFX_VERSION,只为需要它的 GPU 设置"
            " HSA_OVERRIDE_GFX_VERSION_<node>。",
        ),
        (
            "no official PyTorch ROCm wheel works on {gfx}, and rocmfix knows no older stack that did.",
            "没有官方 PyTorch ROCm wheel 能在 {gfx} 上运行,rocmfix 也不知道有哪个旧版组合可以。",
        ),
        # the checks' details (doctor -v)
        (
            "The kernel sees the card but the amdgpu/KFD driver did not register it for compute.",
            "内核能看到这块显卡,但 amdgpu/KFD 驱动没有把它登记为计算设备。",
        ),
        (
            "The PCI device id names the chip (amdgpu's pciidlist) and its gfx target; current ROCm and"
            " PyTorch builds have no code for it.",
            "PCI 设备 id 指明了芯片(amdgpu 的 pciidlist)和它的 gfx 目标;当前的 ROCm 和 PyTorch 构建都没有它的代码。",
        ),
        (
            "Neither /opt/rocm/.info/version nor rocm_version.h is there: a partial install or leftovers"
            " of a removed one.",
            "/opt/rocm/.info/version 和 rocm_version.h 都不存在:安装不完整,或是已删除版本的残留。",
        ),
        (
            "ROCm on WSL needs AMD's WSL runtime (librocdxg) and a supported Radeon; rocminfo and"
            " rocm-smi behave differently and HSA_OVERRIDE_GFX_VERSION does not apply to the Windows"
            " driver.",
            "WSL 上的 ROCm 需要 AMD 的 WSL 运行时(librocdxg)和受支持的 Radeon 显卡;rocminfo 和 rocm-smi"
            " 的行为不同,HSA_OVERRIDE_GFX_VERSION 对 Windows 驱动不起作用。",
        ),
        (
            "ROCr reports OUT_OF_RESOURCES (4104) for any failed start, usually /dev/kfd not opening or"
            " no usable GPU; it is not about memory. The device-nodes and kernel-log checks say which.",
            "ROCr 在任何启动失败时都报告 OUT_OF_RESOURCES(4104),通常是 /dev/kfd 打不开或没有可用的 GPU;"
            "这与内存无关。device-nodes 和 kernel-log 检查会说明是哪一种。",
        ),
        (
            "The devices were passed in, but the process lacks the host's device group (or the"
            " container's device cgroup refuses them).",
            "设备已经传入,但进程不在宿主机的设备用户组中(或容器的设备 cgroup 拒绝了它们)。",
        ),
        (
            "Under WSL the runtime accepts only the Radeon cards on AMD's WSL support list for that ROCm"
            " release and Windows driver; /dev/kfd is absent by design.",
            "在 WSL 下,运行时只接受 AMD 的 WSL 支持列表中对应该 ROCm 版本和 Windows 驱动的 Radeon 显卡;"
            "没有 /dev/kfd 是设计如此。",
        ),
        (
            "A runtime older than the GPU may not know it. Tools and builds that use the system ROCm"
            " (rocminfo, compiled extensions) are affected; a ROCm PyTorch wheel brings its own.",
            "比 GPU 旧的运行时可能不认识它。使用系统 ROCm 的工具和构建(rocminfo、编译的扩展)会受影响;"
            "ROCm 版 PyTorch wheel 自带运行时。",
        ),
        (
            "ROCm may pick the iGPU or fail to initialise on it; HSA_OVERRIDE_GFX_VERSION also applies"
            " to it.",
            "ROCm 可能选中集成显卡,或在它上面初始化失败;HSA_OVERRIDE_GFX_VERSION 也会作用于它。",
        ),
        (
            "A module that built can still be refused at load time (Secure Boot, a blacklist): see the"
            " secure-boot and kernel-log checks.",
            "构建成功的模块在加载时仍可能被拒绝(安全启动、黑名单):见 secure-boot 和 kernel-log 检查。",
        ),
        (
            "LD_LIBRARY_PATH or LD_PRELOAD puts a system ROCm ahead of the libraries torch was built with.",
            "LD_LIBRARY_PATH 或 LD_PRELOAD 把系统 ROCm 排在 torch 构建时所用的库之前。",
        ),
        (
            "A release that lists the GPU knows its ISA: something replaced the runtime's own libraries"
            " or environment (a compiler environment script is a known case).",
            "列出了这块 GPU 的版本认识它的指令集:有东西替换了运行时自己的库或环境(已知的例子是编译器的环境脚本)。",
        ),
        (
            "The kernel refused the open with EINVAL: neither a group nor a missing device; compare with"
            " `rocminfo` on the host.",
            "内核以 EINVAL 拒绝了打开:既不是用户组问题,也不是缺少设备;请和宿主机上的 `rocminfo` 对比。",
        ),
        (
            "The runtime inside a generic ROCm wheel talks to /dev/kfd, which WSL does not have.",
            "通用 ROCm wheel 里的运行时要访问 /dev/kfd,而 WSL 没有它。",
        ),
        (
            "Under WSL the GPU is reached only through AMD's WSL runtime (/dev/dxg); torch loads its own"
            " {p}, which has no WSL path.",
            "在 WSL 下 GPU 只能经由 AMD 的 WSL 运行时(/dev/dxg)访问;torch 加载的是它自带的 {p},没有通往 WSL 的路径。",
        ),
        (
            "Read /var/lib/dkms/amdgpu/<version>/build/make.log for the compiler error.",
            "编译器的错误见 /var/lib/dkms/amdgpu/<version>/build/make.log。",
        ),
        (
            "KFD answers ENOMEM/ENODEV when it registered no device: the GPU is not supported by this"
            " kernel's KFD, lacks PCIe atomics, or failed to initialise. Groups do not help.",
            "KFD 没有登记任何设备时会回答 ENOMEM/ENODEV:这块 GPU 不受这个内核的 KFD 支持、缺少 PCIe"
            " 原子操作,或初始化失败。用户组帮不上忙。",
        ),
        (
            "With the device nodes closed to this user the runtime cannot query the GPU, so the message"
            " says nothing about the ROCm release (see device-nodes).",
            "设备节点对这个用户关闭时,运行时无法查询 GPU,所以这条消息说明不了 ROCm 版本的问题(见 device-nodes)。",
        ),
        ("Sources: {urls}", "来源:{urls}"),
        (
            "node {n}: GPU {gfx} ({names}), VRAM {v}, PCI {slot}, render node {r}",
            "节点 {n}:GPU {gfx}({names}),显存 {v},PCI {slot},render 节点 {r}",
        ),
        (
            "node {n}: iGPU {gfx} ({names}), VRAM {v}, PCI {slot}, render node {r}",
            "节点 {n}:集成显卡 {gfx}({names}),显存 {v},PCI {slot},render 节点 {r}",
        ),
        # verify's notes
        ("recorded on the demo machine before the fix", "修复之前在演示机器上录制"),
        ("recorded on the demo machine after {what}", "在演示机器上 {what} 之后录制"),
        ("{gpu} is not in the peak table: no % of peak", "{gpu} 不在峰值表中:没有峰值百分比"),
        ("GPU {n} ({name}) is not in the peak table: no % of peak", "GPU {n}({name})不在峰值表中:没有峰值百分比"),
        ("GPU {n}: peak figures for {name} are marked unverified", "GPU {n}:{name} 的峰值数据标记为未经核实"),
        (
            "torch is a CUDA build: this is not a ROCm GPU (verified through CUDA anyway)",
            "torch 是 CUDA 构建:这不是 ROCm GPU(仍然通过 CUDA 做了验证)",
        ),
        (
            "CPU rehearsal: every stage ran on the CPU; no GPU was tested",
            "CPU 演练:每个阶段都在 CPU 上运行;没有测试任何 GPU",
        ),
        (
            "killed {n} process(es) the child left outside its process group",
            "结束了子进程留在其进程组之外的 {n} 个进程",
        ),
    )
)

VERIFY_DETAILS: tuple[tuple[re.Pattern[str], str], ...] = _specific_first(
    (
        # what a passing stage measured
        ("{n} device(s) visible", "可见 {n} 块设备"),
        ("{n} device(s)", "{n} 块设备"),
        ("{size} written and read back", "写入并读回 {size}"),
        ("H2D {r} GB/s, bit-exact", "主机到设备 {r} GB/s,逐位一致"),
        ("max rel err {e}", "最大相对误差 {e}"),
        ("{size} round trip, H2D {r} GB/s", "{size} 往返,主机到设备 {r} GB/s"),
        ("{shape} fp32, max rel err {e}", "{shape} fp32,最大相对误差 {e}"),
        ("{shape}, max rel err {errs}", "{shape},最大相对误差 {errs}"),
        ("{n} device(s) idle", "{n} 块设备空闲"),
        ("first use {t}s; first/repeat: {parts}", "首次使用 {t} 秒;首次/重复:{parts}"),
        (
            "loss {a} -> {b} in {n} steps ({dtype} autocast + GradScaler)",
            "loss 在 {n} 步内从 {a} 到 {b}({dtype} autocast + GradScaler)",
        ),
        ("{backend} compiled in {t}s, then {ms} ms", "{backend} 编译用时 {t} 秒,之后每次 {ms} 毫秒"),
        (
            "{backend} compiled in {t}s, then {ms} ms, triton {v}",
            "{backend} 编译用时 {t} 秒,之后每次 {ms} 毫秒,triton {v}",
        ),
        (
            "{g} of {f} GiB free filled and read back in {t}s; OOM {oom}",
            "填满空闲 {f} GiB 中的 {g} GiB 并读回,用时 {t} 秒;OOM {oom}",
        ),
        ("{w} ranks, {b}, bus bandwidth {bw} GB/s", "{w} 个 rank,{b},总线带宽 {bw} GB/s"),
        ("1 rank, {b}: init, all-reduce, destroy ({g} GB/s)", "1 个 rank,{b}:初始化、all-reduce、销毁({g} GB/s)"),
        ("CPU rehearsal (no GPU is tested)", "CPU 演练(没有测试任何 GPU)"),
        # why a stage failed
        (
            "this torch is a CPU-only build: torch.version.hip and torch.version.cuda are both None",
            "这个 torch 是只支持 CPU 的构建:torch.version.hip 和 torch.version.cuda 都是 None",
        ),
        ("torch ({f} build) sees no GPU", "torch({f} 构建)看不到 GPU"),
        ("torch ({f} build) sees no GPU: {why}", "torch({f} 构建)看不到 GPU:{why}"),
        (
            "invalid device ordinal: device {i} requested, {n} visible",
            "无效的设备编号:请求了设备 {i},只有 {n} 块可见",
        ),
        ("{name} matmul returned NaN", "{name} 矩阵乘法返回了 NaN"),
        ("{name} matmul returned inf", "{name} 矩阵乘法返回了 inf"),
        ("{name} matmul returned all zeros", "{name} 矩阵乘法返回了全零"),
        (
            "{name} matmul differs from the float64 reference: max rel err {e} > {tol}",
            "{name} 矩阵乘法与 float64 参考结果不一致:最大相对误差 {e} > {tol}",
        ),
        ("data changed on a host -> device -> host round trip", "数据在主机 -> 设备 -> 主机的往返中变了"),
        ("a freshly filled buffer does not read back as written", "刚填充的缓冲区读回的内容与写入的不同"),
        (
            "{name} conv2d {what} differs from the float64 reference: {shown} > {tol}",
            "{name} conv2d {what} 与 float64 参考结果不一致:{shown} > {tol}",
        ),
        ("training loss became NaN/inf under autocast", "autocast 下训练 loss 变成了 NaN/inf"),
        ("weights became NaN/inf after training: {w}", "训练后权重变成了 NaN/inf:{w}"),
        ("GradScaler found inf/NaN gradients in {k} of {n} steps", "GradScaler 在 {n} 步中的 {k} 步发现了 inf/NaN 梯度"),
        ("training loss did not fall: {a} -> {b} over {n} steps", "训练 loss 没有下降:{n} 步内 {a} -> {b}"),
        ("torch.compile needs Triton, which does not import here: {e}", "torch.compile 需要 Triton,但这里无法导入它:{e}"),
        (
            "Triton {v} at {p} has no AMD backend ({b}): a CUDA build of Triton shadows the ROCm one",
            "位于 {p} 的 Triton {v} 没有 AMD 后端({b}):CUDA 版 Triton 遮住了 ROCm 版",
        ),
        ("torch.compile result differs from eager: max rel err {e}", "torch.compile 的结果与 eager 不一致:最大相对误差 {e}"),
        ("{exc} after {a} of the {f} GiB reported free", "在报告空闲的 {f} GiB 中分配到 {a} GiB 后出错:{exc}"),
        (
            "memory chunk {i} of {n} reads back {lo}..{hi}, written {w}",
            "第 {i} 块显存(共 {n} 块)读回 {lo}..{hi},写入的是 {w}",
        ),
        ("all-reduce did not finish within {t} s", "all-reduce 在 {t} 秒内没有完成"),
        ("all-reduce rank {r} failed (exit status {s})", "all-reduce 的 rank {r} 失败(退出码 {s})"),
        ("all-reduce on rank {r} gave {v}, expected {want}", "rank {r} 上的 all-reduce 得到 {v},应为 {want}"),
        ("torch.distributed is not available in this torch build", "这个 torch 构建中没有 torch.distributed"),
        (
            "a world-size-1 all-reduce changed the data: {a}..{b}, expected 3.0",
            "world size 为 1 的 all-reduce 改变了数据:{a}..{b},应为 3.0",
        ),
    )
)


def verify_detail(text: str, lang: str) -> str:
    """A verify stage's detail or failure message in ``lang`` (values kept; unknown stays English)."""
    return translate(text, VERIFY_DETAILS, lang) if lang == "zh" and text else text


PLAN: tuple[tuple[re.Pattern[str], str], ...] = _specific_first(
    (
        ("plan {id}: {action}", "计划 {id}:{action}"),
        ("step {n}:", "第 {n} 步:"),
        ("step {n} [needs root]:", "第 {n} 步(需要 root):"),
        ("move {p}", "移动 {p}"),
        ("undo {id}: {action} ({status}, {time})", "撤销 {id}:{action}({status},{time})"),
        ("delete {p} (as it was before)", "删除 {p}(恢复原状)"),
        ("restore {p} (as it was before)", "恢复 {p}(恢复原状)"),
        ("move {dst} back to {src}", "把 {dst} 移回 {src}"),
        ("(nothing to reverse: {cmd})", "(无需撤销:{cmd})"),
        ("Undo these change(s)?", "撤销这些更改?"),
        ("undone {id}", "已撤销 {id}"),
        ("the version edited since the fix is kept at {p}", "修复之后被编辑过的版本保存在 {p}"),
        ("step {n}: {what}", "第 {n} 步:{what}"),
        ("note: {why}", "注意:{why}"),
        ("nothing to change", "没有需要更改的内容"),
        (
            "open a new terminal (or `source {p}`) for the change to take effect",
            "打开一个新终端(或运行 `source {p}`)让更改生效",
        ),
        (
            "dry run: nothing was changed. Add --apply to make these changes.",
            "预演:没有做任何更改。加上 --apply 执行这些更改。",
        ),
        ("nothing to change: this is already in place.", "没有需要更改的内容:这已经生效。"),
        (
            "nothing here that rocmfix can apply: the fixes above are done by hand.",
            "这里没有 rocmfix 能应用的修复:上面的修复需要手动完成。",
        ),
        ("fix {n}, to do by hand:", "修复 {n},需手动完成:"),
        ("to do by hand:", "需手动完成:"),
        ("nothing to change.", "没有需要更改的内容。"),
        ("nothing was changed.", "没有做任何更改。"),
        ("Apply these {n} change(s)?", "应用这 {n} 项更改?"),
        ("applied {id}; undo with: rocmfix undo {id2}", "已应用 {id};撤销:`rocmfix undo {id2}`"),
        (
            "note: the journal could not record that {id} finished (disk full?); "
            "`rocmfix undo {id2}` still reverses it.",
            "注意:日志没能记下 {id} 已完成(磁盘满了?);`rocmfix undo {id2}` 仍然可以撤销它。",
        ),
        ("verify: recovered (the GPU test passes)", "验证:已恢复(GPU 测试通过)"),
        ("verify: not recovered ({why})", "验证:没有恢复({why})"),
        ("fix {n}: {action}", "修复 {n}:{action}"),
        ("not offered: needs {what}; try --from-log FILE", "未提供:需要 {what};试试 --from-log FILE"),
        ("not offered: needs {what}", "未提供:需要 {what}"),
        ("not offered: {why}", "未提供:{why}"),
        ("no MIOpen cache or user db found: nothing to move", "没有找到 MIOpen 缓存或用户数据库:没有需要移动的内容"),
        (
            "paths come from this shell's MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH; if your"
            " training job sets others, run this from its environment",
            "路径取自当前 shell 的 MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH;"
            "如果训练任务设置了别的路径,请在它的环境中运行",
        ),
    )
)


def _pieces(text: str, table: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    """``text`` in Chinese: each ``; ``-joined part when every part has a shape in the table
    (a value must not swallow the part before it), else the whole, else the parts it knows."""
    parts = text.split("; ")
    done = [translate(p, table, "zh") for p in parts]
    if len(parts) > 1 and all(a != b for a, b in zip(parts, done, strict=True)):
        return "；".join(done)
    whole = translate(text, table, "zh")
    if whole != text or len(parts) == 1:
        return whole
    return "；".join(done) if done != parts else text


def title(check_id: str, english: str, lang: str) -> str:
    return TITLES_ZH.get(check_id, english) if lang == "zh" else english


def summary(text: str, lang: str) -> str:
    """A check's summary (or its fix line) in ``lang``."""
    return _pieces(text, SUMMARIES) if lang == "zh" and text else text


def stage(stage_id: str, english: str, lang: str) -> str:
    return STAGES_ZH.get(stage_id, english) if lang == "zh" else english


def risk(level: str, lang: str) -> str:
    return RISK_ZH.get(level, level) if lang == "zh" else level


# The English words in front of a check's evidence (`doctor -v`); commands, variables,
# paths and values after them stay as they are, so they can be searched for.
EVIDENCE_ZH: tuple[tuple[str, str], ...] = (
    ("kernel release", "内核版本"),
    ("AMD PCI device", "AMD PCI 设备"),
    ("secure boot", "安全启动"),
    ("process groups", "进程所属用户组"),
    ("loaded by torch: ", "torch 加载的库："),
    ("loaded ", "已加载 "),
    ("arch list", "架构列表"),
    ("system ROCm", "系统 ROCm"),
    ("user db ", "用户数据库 "),
    ("kernel cache ", "内核缓存 "),
    ("RAM total / available", "内存 总量 / 可用"),
    ("swap total / used", "交换区 总量 / 已用"),
    ("device ", "设备 "),
    ("KFD node ", "KFD 节点 "),
    ("rocminfo GPU agent", "rocminfo GPU agent"),
    ("distribution HIP runtime", "发行版的 HIP 运行时"),
    ("triton distribution", "triton 发行包"),
    ("gfx table ", "gfx 表 "),
    ("container", "容器"),
)


def evidence_source(source: str, lang: str) -> str:
    if lang != "zh":
        return source
    for english, chinese in EVIDENCE_ZH:
        if source.startswith(english):
            return chinese + source[len(english) :]
    return source


def journal_status(status: str, lang: str) -> str:
    return JOURNAL_STATUS_ZH.get(status, status) if lang == "zh" else status


def plan_line(line: str, lang: str) -> str:
    """One line of a fix plan's text (headings, notes, outcome); diff lines stay as they are."""
    if lang != "zh" or not line.strip() or line.lstrip().startswith(("+", "-", "@", "$")):
        return line
    indent = line[: len(line) - len(line.lstrip())]
    return indent + _pieces(line.strip(), PLAN)


# The words `rocmfix doctor` writes around the results.
DOCTOR: dict[str, dict[str, str]] = {
    "en": {
        "this_machine": "this machine",
        "snapshot": "snapshot {name}",
        "probed": "torch probed in {python}",
        "counts": "{fail} failed, {warn} warnings, {error} could not run, {ok} ok, {skip} skipped.",
        "causes": "Most likely root causes:",
        "cause": "  {n}. {id}  (from {checks})",
        "next": "Next: {cmd}",
        "fix": "fix:",
        "kb": "confirms {confirms}; rules out {rules_out}",
    },
    "zh": {
        "this_machine": "本机",
        "snapshot": "快照 {name}",
        "probed": "探测 torch 的解释器：{python}",
        "counts": "{fail} 项失败，{warn} 项警告，{error} 项无法运行，{ok} 项正常，{skip} 项跳过。",
        "causes": "最可能的根本原因：",
        "cause": "  {n}. {id}（来自 {checks}）",
        "next": "下一步：{cmd}",
        "fix": "修复：",
        "kb": "证实 {confirms}；排除 {rules_out}",
    },
}

WHY_PYTHON_ZH: dict[str, str] = {
    "the interpreter recorded in the snapshot": "快照中记录的解释器",
    "the interpreter running rocmfix (no active environment with torch)": (
        "运行 rocmfix 的解释器（没有装有 torch 的激活环境）"
    ),
    "python3 on PATH (it has torch)": "PATH 上的 python3（装有 torch）",
    "the active environment ($VIRTUAL_ENV)": "当前激活的环境（$VIRTUAL_ENV）",
    "the active environment ($CONDA_PREFIX)": "当前激活的环境（$CONDA_PREFIX）",
}


def _word(table: dict[str, dict[str, str]], lang: str, key: str, values: dict[str, object]) -> str:
    """``table[lang][key]`` filled in; a key only one language has (zh's no_amd_gpu: English
    says it in the command) is looked up in English only when missing, never eagerly."""
    template = table.get(lang, table["en"]).get(key)
    return (table["en"][key] if template is None else template).format(**values)


def doctor_word(lang: str, key: str, **values: object) -> str:
    return _word(DOCTOR, lang, key, values)

FAILURE_KIND_ZH: dict[str, str] = {
    "crash": "崩溃",
    "hang": "卡住",
    "error": "出错",
    "no-gpu": "没有 GPU",
    "wrong-result": "结果错误",
    "slow": "太慢",
}

# The words `rocmfix verify` writes around its results.
VERIFY: dict[str, dict[str, str]] = {
    "en": {
        "stages": "Stages",
        "stage": "stage",
        "gpu": "gpu",
        "time": "time",
        "detail": "detail",
        "ok": "ok",
        "fail": "FAIL",
        "devices": "Devices: TFLOPS (% of dense peak)",
        "name": "name",
        "arch": "arch",
        "note": "note: {note}",
        "read": "read: rocmfix kb show {id}",
        "failed_at": "{kind} at {stage}",
        "explained": "explained by: ",
        "details": "details: rocmfix kb show {id}",
        "stderr": "last lines of stderr:",
        "failed": "verify failed",
        "verified": "GPU verified at level {level} in {seconds:.1f}s",
        "running": "running: {stage}",
    },
    "zh": {
        "stages": "阶段",
        "stage": "阶段",
        "gpu": "GPU",
        "time": "用时",
        "detail": "详情",
        "ok": "通过",
        "fail": "失败",
        "devices": "设备：TFLOPS（占稠密峰值的百分比）",
        "name": "名称",
        "arch": "架构",
        "note": "注意：{note}",
        "read": "参阅：rocmfix kb show {id}",
        "failed_at": "{stage}阶段失败：{kind}",
        "explained": "原因：",
        "details": "详情：rocmfix kb show {id}",
        "stderr": "stderr 的最后几行：",
        "failed": "验证失败",
        "verified": "GPU 已通过 {level} 级别验证，用时 {seconds:.1f} 秒",
        "running": "正在运行：{stage}",
        "no_amd_gpu": (
            "本机没有 AMD GPU（没有 /dev/kfd，也没有 AMD 显示设备）：这里的失败说明不了 ROCm 的问题，"
            "也不建议重装 ROCm。请在有 GPU 的机器上运行 rocmfix，或用 `rocmfix doctor --snapshot DIR`"
            " 回放 `rocmfix collect` 在那里记录的内容。"
        ),
    },
}


def verify_word(lang: str, key: str, **values: object) -> str:
    return _word(VERIFY, lang, key, values)


# `rocmfix install-plan` (rocmfix.compat's sentences). The facts and their sources stay
# as they are written: they quote the upstream pages they cite.
INSTALL_PLAN_WORDS_ZH: dict[str, str] = {
    "GPUs": "GPU",
    "commands": "命令（rocmfix 从不自己运行 pip；`rocmfix fix reinstall-torch` 以可撤销的方式执行安装）",
    "Notes": "说明",
    "Facts used": "依据的事实（原文，附来源）",
    "Inputs": "输入",
    "native": "原生支持",
    "override": "用覆盖值",
    "hidden": "隐藏",
    "unsupported": "不受支持",
    "as": "以 {gfx} 运行",
}
_INSTALL_PLAN_PAIRS: tuple[tuple[str, str], ...] = (
        ("torch {v} already targets {gpus}: keep it", "torch {v} 已经支持 {gpus}：保留它"),
        ("install torch>={v} from the {index} index for {gpus}", "为 {gpus} 从 {index} 索引安装 torch>={v}"),
        ("{gfx} runs as {other} (HSA_OVERRIDE_GFX_VERSION={v})", "{gfx} 以 {other} 运行（HSA_OVERRIDE_GFX_VERSION={v}）"),
        ("hide {gpus}", "隐藏 {gpus}"),
        (
            "hide {gpus} with `rocmfix fix hide-igpu` (it reads the device order on the machine)",
            "用 `rocmfix fix hide-igpu` 隐藏 {gpus}（它会读取这台机器上的设备顺序）",
        ),
        (
            "no official PyTorch ROCm wheel works on {gpus}, and rocmfix knows no older stack that did",
            "没有官方的 PyTorch ROCm wheel 能在 {gpus} 上运行，rocmfix 也不知道有哪个更早的组合可以",
        ),
        (
            "builds from AMD's own indexes or from source may target it; rocmfix does not plan them (not verified)",
            "AMD 自己的索引或从源码构建的版本可能支持它；rocmfix 不为它们做计划（未经核实）",
        ),
        ("needs Python {v}", "需要 Python {v}"),
        (
            "optional: a newer stack for these GPUs is torch>={v} from {index} (`rocmfix fix reinstall-torch` installs it reversibly)",
            "可选：这些 GPU 有更新的组合，{index} 上的 torch>={v}（`rocmfix fix reinstall-torch` 以可撤销的方式安装）",
        ),
        (
            "pip takes the newest torch on {index}; releases after {v} there have inferred (not verified) arch lists",
            "pip 会取 {index} 上最新的 torch；{v} 之后的版本的架构列表是推断的（未经核实）",
        ),
        (
            "Python version not known: the plan assumes a Python the wheels support",
            "不知道 Python 版本：计划假定使用 wheel 支持的 Python",
        ),
        (
            "Python {v} has no ROCm wheel that targets these GPUs; create a venv with Python {w} and install there",
            "Python {v} 没有支持这些 GPU 的 ROCm wheel；请用 Python {w} 创建 venv 并在其中安装",
        ),
        (
            "Python {v} limits you to the {index} wheels; a newer Python gets {best}",
            "Python {v} 只能用 {index} 的 wheel；更新的 Python 可以用 {best}",
        ),
        (
            "a per-node override needs the ROCm runtime of {index} or newer; the wheels on {other} are older",
            "按节点覆盖需要 {index} 或更新的 ROCm 运行时；{other} 上的 wheel 更旧",
        ),
        (
            "set HSA_OVERRIDE_GFX_VERSION_<node> for the overridden GPU only; run `rocmfix install-plan` on that machine to learn its KFD node number",
            "只为被覆盖的 GPU 设置 HSA_OVERRIDE_GFX_VERSION_<node>；在那台机器上运行 `rocmfix install-plan` 可以得知它的 KFD 节点号",
        ),
)
# A sentence whose own text holds "; " is matched whole; a summary's "; "-joined
# parts are matched one by one (a value must not swallow the parts after it).
INSTALL_PLAN_WHOLE = _specific_first(tuple(p for p in _INSTALL_PLAN_PAIRS if "; " in p[0]))
INSTALL_PLAN_PART = _specific_first(tuple(p for p in _INSTALL_PLAN_PAIRS if "; " not in p[0]))


def install_plan_text(text: str, lang: str) -> str:
    """A summary or note of `install-plan` in ``lang``."""
    if lang != "zh" or not text:
        return text
    legacy = re.match(
        r"current PyTorch ROCm wheels no longer work on (.+?); the newest stack that still does: (.*)$",
        text,
        re.S,
    )
    if legacy:  # the newest stack that still works is itself a summary
        rest = install_plan_text(legacy.group(2), lang)
        return f"当前的 PyTorch ROCm wheel 已不再支持 {legacy.group(1)}；仍然支持的最新组合：{rest}"
    whole = translate(text, INSTALL_PLAN_WHOLE, "zh")
    if whole != text:
        return whole
    parts = text.split("; ")
    done = [translate(p, INSTALL_PLAN_PART, "zh") for p in parts]
    if any(a == b for a, b in zip(parts, done, strict=True)):
        return text  # one part has no Chinese: keep the sentence whole in English
    return "；".join(done)
