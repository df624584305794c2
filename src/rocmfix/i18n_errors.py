"""Chinese wording of the CLI's one-line errors and hints (``--lang zh`` or a zh locale).

Errors are raised in English with the values filled in; here the common
ones are matched by shape and re-worded, keeping the values (paths, ids,
commands) exactly as they were. A message with no entry stays English:
it is still true, only not translated. Commands and flags are never
translated, since they are what the user types.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocmfix._lang import lang_of, locale_lang

__all__ = ["HINTS", "LABELS", "MESSAGES", "SCHEMA", "lang_of", "locale_lang", "translate", "warning"]

_V = r"(?P<{}>.+?)"


def _rx(pattern: str) -> re.Pattern[str]:
    """``{name}`` in ``pattern`` captures a value; the rest matches literally."""
    parts = re.split(r"\{(\w+)\}", pattern)
    out = []
    for i, part in enumerate(parts):
        out.append(_V.format(part) if i % 2 else re.escape(part))
    return re.compile("^" + "".join(out) + "$", re.S)


_FULL_WIDTH = str.maketrans({",": "，", ":": "：", "(": "（", ")": "）", ";": "；", "?": "？"})


def _fw(template: str) -> str:
    """Chinese punctuation in ``template`` outside `code` and {values}."""
    parts = re.split(r"(`[^`]*`|\{\w+\})", template)
    return "".join(p if p.startswith(("`", "{")) else p.translate(_FULL_WIDTH) for p in parts)


MESSAGES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (_rx(en), _fw(zh))
    for en, zh in (
        ("{p}: no such file", "{p}:文件不存在"),
        ("{p}: no such file or directory", "{p}:文件或目录不存在"),
        ("{p}: permission denied", "{p}:没有读取权限"),
        ("{p}: is a directory, expected a log file", "{p} 是目录,这里需要一个日志文件"),
        ("{p}: cannot read ({why})", "{p}:无法读取({why})"),
        ("cannot read snapshot {p}: {why}", "无法读取快照 {p}:{why}"),
        ("cannot read {p}: {why}", "无法读取 {p}:{why}"),
        ("{p}: looks like binary data, not a text log", "{p} 看起来是二进制数据,不是文本日志"),
        ("the input looks like binary data, not a text log", "输入看起来是二进制数据,不是文本日志"),
        ("standard input is closed, nothing to read", "标准输入已关闭,没有可读的内容"),
        (
            "the interactive session needs a terminal ({what} is not one)",
            "交互界面需要终端({what} 不是终端)",
        ),
        (
            "the interactive session needs a terminal ({what} are not one)",
            "交互界面需要终端({what} 都不是终端)",
        ),
        (
            "TERM=dumb: this terminal cannot draw the interactive session",
            "TERM=dumb:这个终端无法显示交互界面",
        ),
        (
            "stdin is a pipe or a file: to open the log it carries, add '-'",
            "标准输入是管道或文件:要打开其中的日志,请加上 '-'",
        ),
        ("'-' reads piped input, but stdin is a terminal", "'-' 读取管道输入,但标准输入是终端"),
        ("no terminal to show the app on", "没有可显示界面的终端"),
        ("unknown check id: {id}", "未知的检查项 id:{id}"),
        ("no KB entry {id}", "知识库中没有条目 {id}"),
        ("{t} is neither a fix action nor a KB entry id", "{t} 既不是修复动作,也不是知识库条目 id"),
        ("{python} is not an executable Python interpreter", "{python} 不是可执行的 Python 解释器"),
        ("{p} is not an executable file", "{p} 不是可执行文件"),
        ("expected NAME=VALUE, got {item}", "需要 NAME=VALUE 形式,得到的是 {item}"),
        ("no fix can be applied here", "这里没有可以应用的修复"),
        (
            "fix {n} is done by hand; rocmfix has no action for it",
            "修复 {n} 需要手动完成;rocmfix 没有对应的动作",
        ),
        ("fix {n} cannot be applied: {why}", "修复 {n} 无法应用:{why}"),
        (
            "--pick {n} is not one of the fixes offered here ({numbers})",
            "--pick {n} 不是这里提供的修复之一({numbers})",
        ),
        ("there is no applied fix to undo", "没有可以撤销的已应用修复"),
        ("no journal record {id}", "日志中没有记录 {id}"),
        ("give either an id or --last, not both", "请给出 id 或 --last,不要同时给出"),
        ("not a snapshot: {p} does not exist", "不是快照:{p} 不存在"),
        ("{p} does not show {id}", "{p} 中没有显示 {id}"),
        ("`rocmfix {name}` is not available in this build", "此版本中没有 `rocmfix {name}`"),
        ("command not found: {c}", "找不到命令:{c}"),
        # fix actions: refusals and their parameters
        ("unknown fix action {a}", "未知的修复动作 {a}"),
        ("add-user-to-groups takes only 'groups' (got {x})", "`add-user-to-groups` 只接受 `groups` 参数(收到 {x})"),
        ("groups must be a list such as [render, video]", "groups 必须是列表,例如 `[render, video]`"),
        ("refusing to add {user} to {groups}", "拒绝把 {user} 加入 {groups}"),
        ("{user} is not a user name rocmfix will pass to usermod", "{user} 不是 rocmfix 会交给 usermod 的用户名"),
        ("cannot read the groups of {user}", "无法读取 {user} 所在的用户组"),
        ("{a} takes no parameters (got {x})", "{a} 不接受参数(收到 {x})"),
        ("refusing to move {p}: it is or contains {other}", "拒绝移动 {p}:它就是或包含 {other}"),
        ("refusing to move {p}: {why}", "拒绝移动 {p}:{why}"),
        (
            "cannot list the GPUs on this machine, so cannot tell which to hide",
            "无法列出本机的 GPU,因此无法判断该隐藏哪一块",
        ),
        (
            "every GPU found is integrated; hiding them would leave none",
            "找到的 GPU 都是集成显卡;隐藏它们就一块也不剩了",
        ),
        ("{id} is not a journal id", "{id} 不是修复记录 id"),
        ("cannot use rocmfix's state directory {p}: {why}", "无法使用 rocmfix 的状态目录 {p}:{why}"),
        ("{p} exists and is not a directory", "{p} 已存在,但不是目录"),
        ("cannot create {p}: {why}", "无法创建 {p}:{why}"),
        (
            "cannot save backups in {p}: {why}; nothing was changed",
            "无法在 {p} 中保存备份:{why};没有做任何更改",
        ),
        ("another rocmfix process is changing this machine", "另一个 rocmfix 进程正在修改本机"),
        ("no PyTorch release in rocmfix's table offers {index}", "rocmfix 的版本表中没有提供 {index} 的 PyTorch 版本"),
        ("{index} has no wheels for Python {v}", "{index} 没有适用于 Python {v} 的 wheel"),
        ("the verified wheels on {index} do not target {gfx}", "{index} 上经过验证的 wheel 不支持 {gfx}"),
        (
            "torch {v} already targets these GPUs; {index} would replace it with an older build",
            "torch {v} 已经支持这些 GPU;{index} 会把它换成更旧的版本",
        ),
        ("cannot list the packages of {python} with pip", "无法用 pip 列出 {python} 的软件包"),
        ("reinstall-torch takes rocm_index and python (got {x})", "reinstall-torch 只接受 rocm_index 和 python(收到 {x})"),
        ("set-env needs at least one NAME=VALUE (or --unset NAME)", "set-env 至少需要一个 NAME=VALUE(或 --unset NAME)"),
        ("cannot edit {p}: {why}", "无法编辑 {p}:{why}"),
        ("not setting {name}={value}: {why}", "不设置 {name}={value}:{why}"),
        (
            "the rocmfix block starting on line {n} has no end line ({end}); nothing was changed",
            "从第 {n} 行开始的 rocmfix 块没有结束行({end});没有做任何更改",
        ),
        (
            "your shell is {name}; rocmfix writes only bash, zsh and fish startup files",
            "你的 shell 是 {name};rocmfix 只写 bash、zsh 和 fish 的启动文件",
        ),
        ("{p} is not a virtual environment (no bin/activate)", "{p} 不是虚拟环境(没有 bin/activate)"),
        ("`{cmd}` failed with exit status {code}", "`{cmd}` 失败,退出码 {code}"),
        ("`{cmd}` did not finish within {t}s", "`{cmd}` 在 {t} 秒内没有结束"),
        ("{a}: nothing to change", "{a}:没有需要更改的内容"),
        ("{p} changed since the plan was made", "{p} 在生成计划之后被改动过"),
        ("{id} ({a}) cannot be undone: {why}", "{id}({a})无法撤销:{why}"),
        ("{id} ({a}) is {status}; nothing to undo", "{id}({a})的状态是 {status};没有可撤销的内容"),
        ("{p} no longer exists", "{p} 已不存在"),
        ("backup destination {p} already exists", "备份目标 {p} 已存在"),
        (
            "{id} was undone, but the journal could not record it ({why})",
            "{id} 已撤销,但修复记录没能记下这一点({why})",
        ),
        (
            "{a}: step {n} failed ({why}); {k} earlier change(s) rolled back",
            "{a}:第 {n} 步失败({why});已回滚之前的 {k} 项更改",
        ),
        ("undo of {id} stopped at step {n}: {why}", "撤销 {id} 时在第 {n} 步停下:{why}"),
        ("{name} is not a valid variable name", "{name} 不是有效的变量名"),
        ("{name}: value must be text, got {kind}", "{name}:值必须是文本,得到的是 {kind}"),
        ("{name}: value {v} was never filled in", "{name}:值 {v} 从未被填入"),
        ("refusing {name}={v}: it contains non-ASCII characters", "拒绝 {name}={v}:其中含有非 ASCII 字符"),
        (
            "refusing {name}={v}: it contains {bad}, which could run a command",
            "拒绝 {name}={v}:其中含有 {bad},可能会执行命令",
        ),
        ("{name}={v} is malformed", "{name}={v} 格式不对"),
        (
            "{name}={v} means {gfx}, which is not a gfx target rocmfix knows",
            "{name}={v} 表示 {gfx},这不是 rocmfix 认识的 gfx 目标",
        ),
        ("{name}: a device is listed twice ({v})", "{name}:同一个设备被列了两次({v})"),
        (
            "rocmfix does not set {name}; a fix may set only ROCm, HIP, HSA, MIOpen, PyTorch and"
            " NCCL/RCCL runtime variables (not ones that name a path, library or plugin)",
            "rocmfix 不设置 {name};修复只能设置 ROCm、HIP、HSA、MIOpen、PyTorch 和"
            " NCCL/RCCL 的运行时变量(不包括指定路径、库或插件的变量)",
        ),
        ("rocm_index {v} is not an index name", "rocm_index {v} 不是索引名"),
        ("{name}: device {item} does not exist ({n} GPU(s) found)", "{name}:设备 {item} 不存在(找到 {n} 块 GPU)"),
        ("{name}: {item} is not a device index", "{name}:{item} 不是设备编号"),
        ("{id} has no fix that applies with what is known", "根据已知信息,{id} 没有可以应用的修复"),
        ("this step needs root; run it yourself: {cmd}", "这一步需要 root 权限;请自己运行:{cmd}"),
        # commands: their options and inputs
        ("--python {p}: not an executable file", "--python {p}:不是可执行文件"),
        ("--out {p}: exists and is not an empty directory", "--out {p}:已存在且不是空目录"),
        ("cannot write snapshot to {p}: {why}", "无法把快照写入 {p}:{why}"),
        (
            "give the error text, '-' for stdin, or --file PATH (exactly one)",
            "请给出错误文本、'-'(标准输入)或 --file PATH(只能选一种)",
        ),
        ("the input is empty", "输入是空的"),
        (
            "'-' reads doctor JSON from a pipe, but stdin is a terminal",
            "'-' 从管道读取诊断 JSON,但标准输入是终端",
        ),
        ("--gpu {g}: not a gfx target or GPU name rocmfix knows", "--gpu {g}:不是 rocmfix 认识的 gfx 目标或 GPU 名称"),
        ("{p}: no heldout/ or logs/ folder of labelled reports", "{p}:没有存放已标注报告的 heldout/ 或 logs/ 文件夹"),
        (
            "{p}: no split.json (the frozen split decides what is learned from)",
            "{p}:没有 split.json(冻结划分决定了从哪些数据学习)",
        ),
        ("{p}: no such folder", "{p}:文件夹不存在"),
        ("{p}: no cases", "{p}:没有测试用例"),
        ("no cases", "没有测试用例"),
        (
            "rocmfix kb train needs scikit-learn, numpy and scipy ({m} is missing);"
            " they are training-time tools, not dependencies of rocmfix",
            "`rocmfix kb train` 需要 scikit-learn、numpy 和 scipy(缺少 {m});"
            "它们是训练时用的工具,不是 rocmfix 的依赖",
        ),
        ("{p}: cannot write ({why})", "{p}:无法写入({why})"),
        ("{p}:{n}: a case needs 'text' and 'label'", "{p}:{n}:用例需要 'text' 和 'label'"),
        ("{p}:{n}: not JSON ({why})", "{p}:{n}:不是 JSON({why})"),
        ("{p}: not a usable split ({why})", "{p}:不是可用的划分({why})"),
        ("--yes only makes sense with --out FILE", "--yes 只能和 --out FILE 一起用"),
        ("--out {p}: is a directory, expected a file name", "--out {p}:是目录,这里需要文件名"),
        ("--out {p}: cannot write ({why})", "--out {p}:无法写入({why})"),
        ("cannot read input ({why})", "无法读取输入({why})"),
        ("no doctor results found in {p}", "在 {p} 中没有找到诊断结果"),
        ("stdin: more than 64 MiB of doctor output", "标准输入:诊断输出超过 64 MiB"),
        # the knowledge base file
        ("{p}: is a directory, expected a YAML file", "{p} 是目录,这里需要一个 YAML 文件"),
        ("{p}: not UTF-8 text", "{p}:不是 UTF-8 文本"),
        ("{p}: too large for a KB file ({why})", "{p}:作为知识库文件太大({why})"),
        (
            "{p}: expected a mapping with 'schema: {s}' and an 'entries' list",
            "{p}:需要一个含 `schema: {s}` 和 `entries` 列表的映射",
        ),
        ("{p}: unsupported schema {s} (expected {want})", "{p}:不支持的 schema {s}(需要 {want})"),
        ("{p}: not valid YAML ({why})", "{p}:不是有效的 YAML({why})"),
        # snapshots
        ("{p}: 'commands' must be a list", "{p}:'commands' 必须是列表"),
        ("{p}: unsupported snapshot schema {s}", "{p}:不支持的快照 schema {s}"),
        ("{p} is a symlink; a snapshot's files must be inside it", "{p} 是符号链接;快照的文件必须在它里面"),
        ("{p}: '{key}' must be a mapping, not {kind}", "{p}:'{key}' 必须是映射,而不是 {kind}"),
        ("{p}: '{key}' must be a mapping or null", "{p}:'{key}' 必须是映射或 null"),
        ("{p}: 'user' is malformed", "{p}:'user' 格式不对"),
        # verify
        ("no interpreter at {p}", "{p} 处没有解释器"),
        ("{p} is not executable", "{p} 不可执行"),
        ("--device must be a GPU index or 'all', not {v}", "--device 必须是 GPU 编号或 'all',而不是 {v}"),
        ("--timeout must be a positive number of seconds, not {v}", "--timeout 必须是正的秒数,而不是 {v}"),
        ("--level must be one of {levels}, not {v}", "--level 必须是 {levels} 之一,而不是 {v}"),
        ("--deadline must be a positive number of seconds, not {v}", "--deadline 必须是正的秒数,而不是 {v}"),
        ("cannot run {p}: {why}", "无法运行 {p}:{why}"),
        # argparse type checks (the option's name is put in front by argparse)
        ("expected a GPU index (0, 1, ...) or 'all', not {v}", "需要 GPU 编号(0、1……)或 'all',而不是 {v}"),
        ("expected a positive number of seconds, not {v}", "需要正的秒数,而不是 {v}"),
        ("expected at most 1000000 seconds (about 11 days), not {v}", "最多 1000000 秒(约 11 天),而不是 {v}"),
        ("expected a matrix size from 256 to 32768, not {v}", "需要 256 到 32768 之间的矩阵大小,而不是 {v}"),
        ("expected a whole number, not {v}", "需要整数,而不是 {v}"),
        ("must be 1 or more, not {v}", "必须大于等于 1,而不是 {v}"),
        ("interrupted", "已中断"),
        # reasons carried inside another refusal ({why}): safeio's and the system's own
        ("is a FIFO, not a regular file", "是 FIFO(命名管道),不是普通文件"),
        ("is a device, not a regular file", "是设备文件,不是普通文件"),
        ("is a directory, not a regular file", "是目录,不是普通文件"),
        ("is a socket, not a regular file", "是套接字,不是普通文件"),
        ("larger than {n}", "大于 {n}"),
        ("Too many levels of symbolic links", "符号链接层数过多(可能是循环链接)"),
        ("No space left on device", "磁盘空间不足"),
        ("Read-only file system", "只读文件系统"),
        ("Permission denied", "没有权限"),
        ("Is a directory", "是目录"),
        # warnings: a KB file or a journal line that was skipped, the state rocmfix reads
        ("not UTF-8", "不是 UTF-8"),
        ("unreadable journal line ({x})", "无法读取的修复记录行({x})"),
        ("not a JSON object", "不是 JSON 对象"),
        ("unknown event {e}", "未知的事件 {e}"),
        ("bad record id {r}", "无效的记录 id {r}"),
        ("begin without an action", "begin 事件没有 action"),
        ("steps is not a list", "steps 不是列表"),
        ("params is not a mapping", "params 不是映射"),
        ("a second begin for {r}", "{r} 有第二个 begin 事件"),
        ("event for unknown record {r}", "事件属于未知的记录 {r}"),
        ("cannot read the journal {p}: {why}", "无法读取修复记录 {p}:{why}"),
        (
            "--no-redact: this report keeps usernames, hostnames, addresses, device serials"
            " and any secret in the log; do not post it publicly",
            "--no-redact:这份报告保留了用户名、主机名、地址、设备序列号和日志中的任何机密;"
            "请不要公开发布",
        ),
    )
) + (
    # a KB file's problem, "FILE:LINE: entry 'ID' PROBLEM" (kb validate's cross-check puts a
    # colon after the id); PROBLEM is worded from SCHEMA below
    (
        re.compile(r"^(?P<where>.+?): entry (?P<who>'[^']*'|#\d+):? (?P<msg>.+)$", re.S),
        _fw("{where}:条目 {who}:{msg}"),
    ),
)

SCHEMA: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (_rx(en), _fw(zh))
    for en, zh in (
        ("each entry must be a mapping", "每个条目都必须是映射"),
        ("duplicate id {id}", "重复的 id {id}"),
        ("fix names unknown action {a}", "修复指定了未知的动作 {a}"),
        ("names unknown check {c}", "指定了未知的检查项 {c}"),
        ("'{f}' needs English text ({en: ...})", "'{f}' 需要英文文本(`{{en: ...}}`)"),
        ("'{f}' must be a string in one of {langs}", "'{f}' 必须是字符串,语言须为 {langs} 之一"),
        ("'{f}' must be a mapping with regex or literal", "'{f}' 必须是含 regex 或 literal 的映射"),
        ("'{f}' needs exactly one of regex or literal", "'{f}' 必须有且只有 regex 或 literal 之一"),
        ("'{f}' pattern must be a non-empty string", "'{f}' 的模式必须是非空字符串"),
        ("'{f}' does not compile: {why}", "'{f}' 无法编译:{why}"),
        ("'{f}' must be a number in (0, 1]", "'{f}' 必须是 `(0, 1]` 之间的数"),
        (
            "'{f}' can backtrack catastrophically on a long line: {why}",
            "'{f}' 在长行上可能发生灾难性回溯:{why}",
        ),
        ("'{f}' must be a mapping", "'{f}' 必须是映射"),
        ("'{f}' must be a kebab-case action id", "'{f}' 必须是 kebab-case 的动作 id"),
        ("'{f}' must be a kebab-case string", "'{f}' 必须是 kebab-case 字符串"),
        ("'{f}' must be a mapping of names", "'{f}' 必须是以名称为键的映射"),
        ("'{f}' given without an action", "给出了 '{f}',但没有 action"),
        (
            "'{f}' may not name an interpreter or venv (python, venv)",
            "'{f}' 不能指定解释器或虚拟环境(python、venv)",
        ),
        ("'{f}' must be a list of strings", "'{f}' 必须是字符串列表"),
        ("'{f}' must be a list of non-empty strings", "'{f}' 必须是非空字符串的列表"),
        ("'{f}' must be a list of parameter names", "'{f}' 必须是参数名的列表"),
        ("'{f}' must be a non-empty list", "'{f}' 必须是非空列表"),
        ("'{f}' must be a list", "'{f}' 必须是列表"),
        ("'{f}' must be one of {x}", "'{f}' 必须是 {x} 之一"),
        ("'{f}' must be true or false", "'{f}' 必须是 true 或 false"),
        ("'{f}' must be an integer 0..100", "'{f}' 必须是 0..100 之间的整数"),
        ("'{f}' needs name and regex", "'{f}' 需要 name 和 regex"),
        ("'{f}' needs a capture group", "'{f}' 需要一个捕获组"),
        ("'{f}' needs at least one URL", "'{f}' 至少需要一个 URL"),
        ("'{f}' must be a URL", "'{f}' 必须是 URL"),
    )
)

HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (_rx(en), _fw(zh))
    for en, zh in (
        (
            "check the path, or pipe the log: {cmd}",
            "请检查路径,或用管道传入日志:{cmd}",
        ),
        (
            "use `rocmfix explain FILE` and `rocmfix doctor`, or run in a terminal with TERM=xterm-256color",
            "请改用 `rocmfix explain FILE` 和 `rocmfix doctor`,或在 TERM=xterm-256color 的终端中运行",
        ),
        (
            "in scripts and pipelines use `rocmfix explain FILE` or `... | rocmfix explain -`",
            "在脚本和管道中请用 `rocmfix explain FILE` 或 `... | rocmfix explain -`",
        ),
        (
            "python train.py 2>&1 | rocmfix -   (or `| rocmfix explain -` for plain text)",
            "python train.py 2>&1 | rocmfix -   (纯文本输出用 `| rocmfix explain -`)",
        ),
        ("use `rocmfix explain -` in pipelines", "在管道中请用 `rocmfix explain -`"),
        ("known ids: {ids}", "已知的 id:{ids}"),
        ("did you mean: {ids}?", "你是不是想找:{ids}?"),
        ("pass --python PATH to a python with torch", "用 --python PATH 指定装有 torch 的 Python"),
        ("see `rocmfix history` for ids", "id 见 `rocmfix history`"),
        ("see `rocmfix history`", "见 `rocmfix history`"),
        ("try --from-log FILE with the full error log", "试试 --from-log FILE,传入完整的错误日志"),
        (
            "run `rocmfix explain -f FILE` to see what the log shows",
            "运行 `rocmfix explain -f FILE` 查看日志显示了什么",
        ),
        ("paste the error text or point --file at the log", "粘贴错误文本,或用 --file 指向日志"),
        ("actions: {a}; KB ids: {k}", "修复动作:{a};知识库 id:{k}"),
        ("actions: {a}", "修复动作:{a}"),
        ("only render and video give GPU access", "只有 render 和 video 组能访问 GPU"),
        ("is `id` installed?", "是否安装了 `id`?"),
        (
            "check MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH",
            "请检查 MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH",
        ),
        (
            "only a directory that holds MIOpen's own files is moved;"
            " check MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH",
            "只会移动存放 MIOpen 自己文件的目录;请检查 MIOPEN_CUSTOM_CACHE_DIR / MIOPEN_USER_DB_PATH",
        ),
        ("set {name} yourself: rocmfix fix set-env {assign}=0", "请自己设置 {name}:`rocmfix fix set-env {assign}=0`"),
        (
            "ids look like 20260101T120000-3f9a; see `rocmfix history`",
            "id 形如 20260101T120000-3f9a;见 `rocmfix history`",
        ),
        (
            "check that it is a writable directory (XDG_STATE_HOME)",
            "请确认它是可写的目录(XDG_STATE_HOME)",
        ),
        (
            "free some space there (or set XDG_STATE_HOME), then run the command again",
            "请在那里腾出空间(或设置 XDG_STATE_HOME),然后再运行一次命令",
        ),
        ("wait for it to finish, then run the command again", "请等它结束,然后再运行一次命令"),
        ("indexes look like rocm6.2, rocm6.2.4, rocm7.2", "索引形如 rocm6.2、rocm6.2.4、rocm7.2"),
        ("rocmfix install-plan says: {summary}", "`rocmfix install-plan` 的结论:{summary}"),
        ("keep it, or reinstall from its own index: rocm_index={v}", "请保留它,或从它自己的索引重装:rocm_index={v}"),
        ("pass the interpreter of your training env with --python", "用 --python 指定训练环境的解释器"),
        ("`rocmfix install-plan` shows the facts it used", "`rocmfix install-plan` 会列出它依据的事实"),
        (
            "fix or remove that file, or use --session to print the lines instead",
            "请修好或删除那个文件,或改用 --session 只打印这些行",
        ),
        (
            "change it where it is made (a dotfile manager), or use --session to print the lines instead",
            "请在生成它的地方(dotfile 管理工具)修改,或改用 --session 只打印这些行",
        ),
        ("`rocmfix install-plan` shows what fits these GPUs", "`rocmfix install-plan` 会列出适合这些 GPU 的版本"),
        (
            "add the line {end} where the block should end, or delete the block",
            "请在块应当结束的地方加上一行 {end},或删除整个块",
        ),
        (
            "use --session to print the lines, or --venv PATH to write a venv's activate",
            "用 --session 打印这些行,或用 --venv PATH 写入虚拟环境的 activate",
        ),
        ("the fix is already in place", "这项修复已经生效"),
        ("run the command again to see a fresh plan", "请再运行一次命令,查看新的计划"),
        (
            "nothing was changed; restore the backup folder or undo the change by hand",
            "没有做任何更改;请恢复备份文件夹,或手动撤销这项更改",
        ),
        ("run the command again", "请再运行一次命令"),
        ("free space in rocmfix's state directory", "请在 rocmfix 的状态目录中腾出空间"),
        (
            "later steps were undone; run `rocmfix undo` again once fixed",
            "后面的步骤已撤销;问题解决后请再运行 `rocmfix undo`",
        ),
        (
            "nothing was changed; run `rocmfix undo` again once fixed",
            "没有做任何更改;问题解决后请再运行 `rocmfix undo`",
        ),
        (
            "use upper-case letters, digits and _, e.g. HIP_VISIBLE_DEVICES",
            "请用大写字母、数字和 _,例如 HIP_VISIBLE_DEVICES",
        ),
        (
            "give the value yourself (NAME=VALUE) or use --from-log FILE",
            "请自己给出值(NAME=VALUE),或使用 --from-log FILE",
        ),
        (
            "the ROCm and PyTorch variables rocmfix sets take plain ASCII values",
            "rocmfix 设置的 ROCm 和 PyTorch 变量只接受纯 ASCII 值",
        ),
        (
            "values may hold only letters, digits and . , : / = + @ % ^ - _",
            "值只能包含字母、数字和 `. , : / = + @ % ^ - _`",
        ),
        (
            "an override is three decimal numbers such as 10.3.0 or 9.0.10",
            "覆盖值是三个十进制数,例如 10.3.0 或 9.0.10",
        ),
        (
            "use --unset {name} to remove it, or set it yourself if you mean it",
            "用 --unset {name} 删除它;如果确实需要,请自己设置",
        ),
        ("indexes look like rocm6.2 or rocm6.2.4", "索引形如 rocm6.2 或 rocm6.2.4"),
        ("`rocmfix doctor` lists the GPUs and their indices", "`rocmfix doctor` 会列出 GPU 及其编号"),
        ("use indices such as 0 or 0,1", "请用 `0` 或 `0,1` 这样的编号"),
        ("give the path of your training env's python", "请给出训练环境中 python 的路径"),
        ("choose a new directory", "请选一个新目录"),
        (
            "save each node's `rocmfix doctor --json` in one folder and summarize the folder",
            "把每个节点的 `rocmfix doctor --json` 存到同一个文件夹,再汇总这个文件夹",
        ),
        (
            'rocmfix explain "hipErrorNoBinaryForGpu"  or  python train.py 2>&1 | rocmfix explain -',
            '例如 `rocmfix explain "hipErrorNoBinaryForGpu"` 或 `python train.py 2>&1 | rocmfix explain -`',
        ),
        (
            "pdsh -w 'gpu[01-64]' rocmfix doctor --json | rocmfix fleet summarize -",
            "例如 `pdsh -w 'gpu[01-64]' rocmfix doctor --json | rocmfix fleet summarize -`",
        ),
        (
            "give the gfx target, e.g. --gpu gfx1101 (rocminfo | grep gfx)",
            "请给出 gfx 目标,例如 --gpu gfx1101(`rocminfo | grep gfx`)",
        ),
        ("give CASES.jsonl files or --repo tests/data", "请给出 CASES.jsonl 文件或 --repo tests/data"),
        (
            "pip install scikit-learn (in a virtual environment of your own)",
            "`pip install scikit-learn`(装在你自己的虚拟环境里)",
        ),
        ("python train.py 2>&1 | rocmfix -", "用管道传入:`python train.py 2>&1 | rocmfix -`"),
        ("nothing was changed; see `rocmfix history`", "没有做任何更改;见 `rocmfix history`"),
        (
            "pipe the log: python train.py 2>&1 | rocmfix explain -",
            "用管道传入日志:`python train.py 2>&1 | rocmfix explain -`",
        ),
        (
            "expected *.json files from `rocmfix doctor --json` or snapshot directories",
            "需要 `rocmfix doctor --json` 生成的 *.json 文件或快照目录",
        ),
        ("then run rocmfix again", "然后再运行 rocmfix"),
        ("this rocmfix reads {s}", "这个版本的 rocmfix 读取 {s}"),
        ("replay never follows a link out of the snapshot", "回放从不跟随指向快照之外的链接"),
        ("create one with `rocmfix collect --out DIR`", "用 `rocmfix collect --out DIR` 创建一个"),
    )
)

LABELS = {"en": ("rocmfix: ", "hint: "), "zh": ("rocmfix：", "提示：")}


def translate(text: str, table: Sequence[tuple[re.Pattern[str], str]], lang: str) -> str:
    """``text`` in ``lang`` when the table has its shape; else unchanged."""
    if lang != "zh" or not text:
        return text
    for rx, template in table:
        m = rx.match(text)
        if m:
            values = m.groupdict()
            for key in ("why", "m"):  # a reason carried from another refusal reads Chinese too
                if key in values:
                    values[key] = translate(values[key], table, lang)
            if "msg" in values:  # a KB entry's problem
                values["msg"] = translate(values["msg"], SCHEMA, lang)
            return template.format(**values)
    return text


def warning(problem: str, lang: str) -> str:
    """The ``rocmfix: warning: PROBLEM`` line in ``lang`` (a problem no table knows stays English)."""
    from rocmfix.termtext import plain  # a problem names a file: foreign text

    problem = plain(problem)
    if lang != "zh":
        return "rocmfix: warning: " + problem
    tail = ""
    if problem.endswith(" (file skipped)"):
        problem, tail = problem[: -len(" (file skipped)")], "（已跳过该文件）"
    elif problem.endswith("; line skipped"):
        problem, tail = problem[: -len("; line skipped")], "；已跳过这一行"
        where = re.match(r"^(.+?:\d+): (.+)$", problem, re.S)  # JOURNAL:LINE: why
        if where:
            return f"rocmfix：警告：{where[1]}：{translate(where[2], MESSAGES, lang)}{tail}"
    return "rocmfix：警告：" + translate(problem, MESSAGES, lang) + tail
