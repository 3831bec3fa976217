# runner-prelude.py: the Python prelude every Python run gets.
#
# Written into the run's code directory as sitecustomize.py and put on
# PYTHONPATH, so Python imports it at startup. It captures matplotlib
# figures as plot-N.png files (plt.show(), or figures still open at exit)
# without the snippet knowing; figures the snippet saved itself are left
# alone. It also holds how a snippet runs (_sandpad_run_snippet: a
# trailing expression's value shown, top-level await, dedent, IPython's
# shell syntax), which the cold run's bootstrap, the warm driver and the
# session driver all call; and display() with the display protocol, whose
# bundles reach the runner as markers on stdout (runner-display.h).
# Embedded as C text at build time (build-aux/embed-text.py), so the
# runner is one self-contained binary.
#
# Sandpad's Python prelude. It only watches for matplotlib: when a snippet
# calls plt.show(), or ends with figures still open, each figure is saved as
# plot-N.png in the working directory, where the runner reports it. Nothing
# else changes, and nothing is imported until the snippet imports pyplot.
import sys


def _sandpad_when_imported(name, patch):
    """Calls patch(module) once the module name is imported (at once when
    it already is), through a finder first in sys.meta_path that steps
    aside after its one import."""
    if name in sys.modules:
        patch(sys.modules[name])
        return

    class Finder:
        def find_spec(self, fullname, path=None, target=None):
            if fullname != name:
                return None
            import importlib.util

            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            if spec is None or spec.loader is None:
                return spec
            exec_module = spec.loader.exec_module

            def exec_and_patch(module):
                exec_module(module)
                patch(module)

            spec.loader.exec_module = exec_and_patch
            return spec

    sys.meta_path.insert(0, Finder())


# Every import here is deferred until pyplot is imported: the prelude
# must cost nothing to snippets that never plot.
def _sandpad_prelude():
    state = {"count": 0}

    def chart_of(figure, name):
        """The figure as data an assistant reads without seeing it: each
        axes' kind, title, labels, scales and elements (bars, lines,
        scatter points, pie slices, box plots), as E2B's charts give them,
        within caps; None when it has no axes."""
        import math

        most_points, most_elements = 1000, 200

        def number(value):
            try:
                value = float(value)
            except (TypeError, ValueError):
                return None
            return value if math.isfinite(value) else None

        def label_of(artist):
            text = artist.get_label()
            return None if not text or text.startswith("_") else str(text)

        def categories(axis):
            # A categorical axis (strings plotted) as its positions' names.
            mapping = getattr(getattr(axis, "units", None), "_mapping", None)
            if isinstance(mapping, dict):
                return {float(v): str(k) for k, v in mapping.items()}
            return None

        def points(xs, ys, x_names):
            out = []
            for x, y in zip(xs, ys):
                if len(out) == most_points:
                    state["chart_truncated"] = True
                    break
                x = number(x)
                out.append([x_names.get(x, x) if x_names else x, number(y)])
            return out

        def tick_names(axis):
            names = {}
            for tick, at in zip(axis.get_ticklabels(), axis.get_ticklocs()):
                if tick.get_text():
                    names[round(float(at), 6)] = tick.get_text()
            return names

        def axes_chart(ax):
            from matplotlib.collections import PathCollection
            from matplotlib.container import BarContainer
            from matplotlib.patches import Wedge

            chart = {"title": ax.get_title() or None, "x_label": ax.get_xlabel() or None,
                     "y_label": ax.get_ylabel() or None, "x_scale": ax.get_xscale(),
                     "y_scale": ax.get_yscale()}
            elements, kinds = [], []
            boxes = getattr(ax, "_sandpad_boxes", [])
            box_lines = set(getattr(ax, "_sandpad_box_lines", ()))
            for stats in boxes:
                kinds.append("box_and_whisker")
                elements.append({"type": "box_and_whisker",
                                 "label": str(stats.get("label")) if stats.get("label")
                                 is not None else None,
                                 "min": number(stats.get("whislo")),
                                 "first_quartile": number(stats.get("q1")),
                                 "median": number(stats.get("med")),
                                 "third_quartile": number(stats.get("q3")),
                                 "max": number(stats.get("whishi")),
                                 "outliers": [number(v) for v in
                                              list(stats.get("fliers", []))[:most_points]]})
            wedges = [p for p in ax.patches if isinstance(p, Wedge)]
            for wedge in wedges:
                kinds.append("pie")
                elements.append({"type": "pie", "label": label_of(wedge),
                                 "angle": number(wedge.theta2 - wedge.theta1),
                                 "radius": number(wedge.r)})
            x_names = categories(ax.xaxis)
            for container in ax.containers:
                if not isinstance(container, BarContainer):
                    continue
                horizontal = getattr(container, "orientation", None) == "horizontal"
                axis = ax.yaxis if horizontal else ax.xaxis
                names = categories(axis) or {}
                ticks = tick_names(axis)
                group = label_of(container)
                for bar in container.patches:
                    if horizontal:
                        at, value = bar.get_y() + bar.get_height() / 2, bar.get_width()
                    else:
                        at, value = bar.get_x() + bar.get_width() / 2, bar.get_height()
                    at = round(float(at), 6)
                    kinds.append("bar")
                    elements.append({"type": "bar", "label": names.get(at, ticks.get(at)),
                                     "group": group, "value": number(value)})
            for line in ax.get_lines():
                if id(line) in box_lines or not line.get_visible():
                    continue
                xs, ys = line.get_xdata(), line.get_ydata()
                kinds.append("line")
                elements.append({"type": "line", "label": label_of(line),
                                 "points": points(xs, ys, x_names)})
            for collection in ax.collections:
                if not isinstance(collection, PathCollection):
                    continue
                offsets = collection.get_offsets()
                kinds.append("scatter")
                elements.append({"type": "scatter", "label": label_of(collection),
                                 "points": points([o[0] for o in offsets],
                                                  [o[1] for o in offsets], x_names)})
            kinds = sorted(set(kinds))
            chart["type"] = kinds[0] if len(kinds) == 1 else "mixed" if kinds else "unknown"
            if len(elements) > most_elements:
                elements = elements[:most_elements]
                state["chart_truncated"] = True
            chart["elements"] = elements
            return chart

        axes = [ax for ax in figure.get_axes() if ax.get_visible()]
        if not axes:
            return None
        state["chart_truncated"] = False
        charts = [axes_chart(ax) for ax in axes]
        if len(charts) == 1:
            data = charts[0]
        else:
            title = getattr(figure, "_suptitle", None)
            data = {"type": "superchart", "title": title.get_text() if title else None,
                    "elements": charts}
        data["file"] = name
        if state["chart_truncated"]:
            data["truncated"] = True
        return data

    def publish_chart(figure, name):
        """The chart's data as a display beside its file (issue 42 item 5),
        never failing the run that drew it."""
        import builtins
        import os

        if not os.environ.get("SANDPAD_DISPLAY_TOKEN") or not hasattr(builtins, "display"):
            return
        try:
            data = chart_of(figure, name)
        except Exception:
            return
        if data is None:
            return
        title = data.get("title")
        text = "<%s chart%s, %s>" % (data["type"], " %r" % title if title else "", name)
        builtins.display({"application/vnd.sandpad.chart+json": data, "text/plain": text},
                         raw=True)

    def save_open(pyplot):
        import os

        # SANDPAD_PLOT_FORMATS=png,svg adds SVG files beside the PNGs.
        formats = [f for f in os.environ.get("SANDPAD_PLOT_FORMATS", "png").split(",")
                   if f in ("png", "svg", "pdf")] or ["png"]
        for num in pyplot.get_fignums():
            figure = pyplot.figure(num)
            # A figure the snippet saved itself is already a result.
            if getattr(figure, "_sandpad_saved", False):
                continue
            state["count"] += 1
            for fmt in formats:
                figure.savefig("plot-%d.%s" % (state["count"], fmt))
            publish_chart(figure, "plot-%d.%s" % (state["count"], formats[0]))
        pyplot.close("all")

    def patch(pyplot):
        import atexit
        from matplotlib.axes import Axes
        from matplotlib.figure import Figure

        # A box plot's statistics, kept for its chart's data: drawn, they
        # are only lines.
        bxp = Axes.bxp

        def bxp_and_keep(self, bxpstats, *args, **kwargs):
            artists = bxp(self, bxpstats, *args, **kwargs)
            try:
                self._sandpad_boxes = getattr(self, "_sandpad_boxes", []) + [
                    dict(stats) for stats in bxpstats]
                self._sandpad_box_lines = getattr(self, "_sandpad_box_lines", []) + [
                    id(line) for lines in artists.values() for line in lines]
            except Exception:
                pass
            return artists

        bxp_and_keep.sandpad = True
        if not getattr(bxp, "sandpad", False):
            Axes.bxp = bxp_and_keep
        savefig = Figure.savefig

        def savefig_and_mark(self, *args, **kwargs):
            self._sandpad_saved = True
            return savefig(self, *args, **kwargs)

        Figure.savefig = savefig_and_mark

        def show(*args, **kwargs):
            save_open(pyplot)
            # Clients place plots among the output by the file's time,
            # which the kernel stamps from a clock a tick (a few ms)
            # coarse: what the snippet prints next must come later.
            import time
            time.sleep(0.02)

        show.__doc__ = pyplot.show.__doc__
        pyplot.show = show
        atexit.register(save_open, pyplot)

    class Finder:
        def find_spec(self, name, path=None, target=None):
            if name != "matplotlib.pyplot":
                return None
            import importlib.util

            sys.meta_path.remove(self)
            try:
                spec = importlib.util.find_spec(name)
            finally:
                sys.meta_path.insert(0, self)
            if spec is None or spec.loader is None:
                return spec
            exec_module = spec.loader.exec_module

            def exec_and_patch(module):
                exec_module(module)
                patch(module)

            spec.loader.exec_module = exec_and_patch
            return spec

    # A warm start (runner-warm-driver.py) has pyplot imported already.
    if "matplotlib.pyplot" in sys.modules:
        patch(sys.modules["matplotlib.pyplot"])
    else:
        sys.meta_path.insert(0, Finder())


_sandpad_prelude()


# matplotlib's font list, made once by the runner (runner-font-cache.h),
# lies in the run's .sandpad, read-only; a copy goes to MPLCONFIGDIR (the
# run's own /tmp) so matplotlib does not scan every font again on import.
def _sandpad_font_list():
    import os

    here = os.path.dirname(__file__)
    # Namespace mode: this file is the runner's, in .sandpad/prelude.
    if os.path.basename(here) == "prelude":
        here = os.path.dirname(here)
    dest = os.environ.get("MPLCONFIGDIR")
    if not dest:
        return
    try:
        names = [n for n in os.listdir(here) if n.startswith("fontlist-v")]
        if not names:
            return
        os.makedirs(dest, 0o700, exist_ok=True)
        with open(os.path.join(here, names[0]), "rb") as src:
            data = src.read()
        with open(os.path.join(dest, names[0]), "xb") as out:
            out.write(data)
    except OSError:
        pass


_sandpad_font_list()
del _sandpad_font_list
del _sandpad_prelude


# Without namespaces (Flatpak), the sandbox refuses chmod, chown, utime and
# xattr changes, by path and by fd (times but through an fd open for
# writing): it cannot tell the run's own files from the user's, and even a
# read-only fd reaches the user's. Python's os.chmod then rewrites a
# regular file with the new mode (a new file beside it, renamed over it),
# which only the run's own directories allow; os.utime opens the file for
# writing; and shutil.copystat (copy2, copytree) carries on without the
# times. This grants nothing: creating, renaming and opening for writing
# is what the sandbox checks.
def _sandpad_fallback_metadata():
    import os

    chmod = os.chmod

    def rewrite(path, mode):
        import stat

        path = os.fsdecode(path)
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise PermissionError(path)
        tmp = os.path.join(os.path.dirname(path) or ".",
                           ".%s.sandpad-chmod-%d" % (os.path.basename(path), os.getpid()))
        with open(path, "rb") as src:
            umask = os.umask(0)
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                             mode & 0o777)
            finally:
                os.umask(umask)
            try:
                with os.fdopen(fd, "wb") as dst:
                    while True:
                        chunk = src.read(1 << 20)
                        if not chunk:
                            break
                        dst.write(chunk)
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise

    def chmod_or_rewrite(path, mode, *, dir_fd=None, follow_symlinks=True):
        try:
            if dir_fd is None and follow_symlinks:
                return chmod(path, mode)
            return chmod(path, mode, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        except PermissionError as error:
            # Setuid, setgid and sticky bits are refused in any mode, and
            # a rewrite would drop them without a word.
            if isinstance(path, int) or dir_fd is not None or not follow_symlinks \
                    or mode & ~0o777:
                raise
            try:
                # The mode it already has (copytree's copystat of a
                # directory it just made, as setuptools' bdist_wheel does):
                # nothing to change, and nothing to refuse.
                if os.stat(path).st_mode & 0o7777 == mode:
                    return None
                rewrite(path, mode)
            except OSError:
                raise error from None

    chmod_or_rewrite.__name__, chmod_or_rewrite.__doc__ = chmod.__name__, chmod.__doc__
    os.chmod = chmod_or_rewrite

    # Times are set through an fd open for writing (unpacking archives
    # sets them; the run init checks the fd's mode); by path they are
    # refused. Opening for writing is what the sandbox checks: a file the
    # run may only read keeps its times, with the original error. A
    # directory cannot be opened for writing: the run init sets its times
    # where the run may write (setuptools' egg_info touches one).
    utime = os.utime

    def utime_via_fd(path, *args, **kwargs):
        try:
            return utime(path, *args, **kwargs)
        except PermissionError as error:
            if isinstance(path, int) or not kwargs.pop("follow_symlinks", True):
                raise
            dir_fd = kwargs.pop("dir_fd", None)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
            except IsADirectoryError:
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC,
                                 dir_fd=dir_fd)
                except OSError:
                    raise error from None
            except OSError:
                raise error from None
            try:
                return utime(fd, *args, **kwargs)
            except PermissionError:
                raise error from None
            finally:
                os.close(fd)

    utime_via_fd.__name__, utime_via_fd.__doc__ = utime.__name__, utime.__doc__
    os.utime = utime_via_fd

    def patch_shutil(shutil):
        copystat = shutil.copystat

        def copystat_or_mode(src, dst, *, follow_symlinks=True):
            try:
                copystat(src, dst, follow_symlinks=follow_symlinks)
            except PermissionError:
                shutil.copymode(src, dst, follow_symlinks=follow_symlinks)

        copystat_or_mode.__doc__ = copystat.__doc__
        shutil.copystat = copystat_or_mode

    _sandpad_when_imported("shutil", patch_shutil)


_sandpad_fallback_metadata()
del _sandpad_fallback_metadata


# How a snippet runs, the same in a cold run (python3 -c, see
# runner-langs.c), a warm one (runner-warm-driver.py) and a session
# (runner-session-driver.py): as python3 runs a script, plus what a
# notebook cell adds. A trailing expression's value is shown (not when it
# is None or its line ends with ";"), top-level await works, and code
# indented as a whole (as assistants send it) runs dedented. Line numbers
# and columns stay those of the file as sent, so a traceback reads as a
# plain run's. Only _ast is used (built in): no import for plain code.
def _sandpad_snippets():
    import _ast

    only_ast, top_level_await, co_coroutine = 0x400, 0x2000, 0x80
    state = {}

    def margin_of(lines):
        margin = None
        for line in lines:
            body = line.lstrip(" \t")
            if not body.strip():
                continue
            indent = line[: len(line) - len(body)]
            if margin is None:
                margin = indent
            while not indent.startswith(margin):
                margin = margin[:-1]
            if not margin:
                return ""
        return margin or ""

    def shift_columns(tree, by):
        todo = [tree]
        while todo:
            node = todo.pop()
            if getattr(node, "col_offset", None) is not None:
                node.col_offset += by
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += by
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    todo.extend(v for v in value if isinstance(v, _ast.AST))
                elif isinstance(value, _ast.AST):
                    todo.append(value)

    def ipython_line(line):
        """One line of IPython syntax as the call that does the same
        (`!cmd`, `x = !cmd`, `%magic args`), on one line at the same
        indentation; None when the line is none of those."""
        body = line.strip()
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        end = "\n" if line.endswith("\n") else ""
        target, sep, rest = body.partition("=")
        value = rest.strip()
        names = [part.strip().split(".") for part in target.split(",")]
        if sep and value[:1] in ("!", "%") and not value.startswith("%%") \
                and all(n.isidentifier() for name in names for n in name):
            call = ipython_call(value)
            if value.startswith("!"):
                call = "_sandpad_magic.getoutput(%r)" % value[1:]
            if call is None:
                return None
            return indent + target.strip() + " = " + call + end
        call = ipython_call(body)
        return None if call is None else indent + call + end

    def ipython_call(body):
        if body.startswith("!"):
            return "_sandpad_magic.system(%r)" % body[1:]
        if body.startswith("%") and not body.startswith("%%") and len(body) > 1:
            name, _, arg = body[1:].partition(" ")
            if name.isidentifier():
                return "_sandpad_magic.line(%r, %r)" % (name, arg.strip())
        return None

    def ipython_source(source, path, flags):
        """A snippet written in IPython's syntax (only one Python rejects: a
        program Python takes runs exactly as written) as the Python that
        does the same, with each line where it was, so line numbers and a
        traceback's lines stay the snippet's. A %%cell magic's body is its
        argument. None when the snippet has none of that syntax."""
        import builtins

        text = source.decode("utf-8", "surrogateescape")
        lines = text.splitlines(keepends=True)
        first = next((i for i, line in enumerate(lines) if line.strip()), None)
        if first is None:
            return None
        head = lines[first]
        if head.startswith("%%") and head[2:].strip():
            name, _, arg = head[2:].strip().partition(" ")
            body = "".join(lines[first + 1:])
            call = "_sandpad_magic.cell(%r, %r, %r)\n" % (name, arg.strip(),
                                                          body)
            lines = lines[:first] + [call] + ["\n"] * (len(lines) - first - 1)
            builtins._sandpad_magic = _sandpad_magics(run_source)
            text = "".join(lines)
            return compile(text, path, "exec", flags, dont_inherit=True), lines
        changed = set()
        for _ in range(min(len(lines), 1000) + 1):
            try:
                text = "".join(lines)
                tree = compile(text, path, "exec", flags, dont_inherit=True)
            except SyntaxError as error:
                number = error.lineno or 0
                line = None
                if 0 < number <= len(lines) and number not in changed:
                    line = ipython_line(lines[number - 1])
                if line is None:
                    if changed and number not in changed:
                        raise
                    return None
                lines[number - 1] = line
                changed.add(number)
                continue
            if not changed:
                return None
            builtins._sandpad_magic = _sandpad_magics(run_source)
            return tree, lines
        return None

    def parse(source, path):
        """The snippet's tree, dedented when every line is indented alike
        (python3 would stop at "unexpected indent"), and its lines."""
        flags = only_ast | top_level_await
        try:
            return compile(source, path, "exec", flags, dont_inherit=True), None
        except IndentationError as error:
            text = source.decode("utf-8", "surrogateescape")
            lines = text.splitlines(keepends=True)
            margin = margin_of(lines)
            if not margin:
                raise
            dedented = "".join(line[len(margin):] if line.startswith(margin)
                               else line.lstrip(" \t") for line in lines)
            try:
                tree = compile(dedented, path, "exec", flags, dont_inherit=True)
            except SyntaxError as inner:
                # Placed in the line as sent.
                if inner.lineno is not None and 0 < inner.lineno <= len(lines):
                    inner.text = lines[inner.lineno - 1]
                    for name in ("offset", "end_offset"):
                        if getattr(inner, name, None):
                            setattr(inner, name, getattr(inner, name) + len(margin))
                raise inner from None
            shift_columns(tree, len(margin.encode()))
            del error
            return tree, lines
        except SyntaxError:
            try:
                made = ipython_source(source, path, flags)
            except SyntaxError as later:
                raise later from None
            if made is None:
                raise
            return made

    def run_code(code, namespace):
        if code.co_flags & co_coroutine:
            loop = state.get("loop")
            if loop is None:
                import asyncio

                loop = state["loop"] = asyncio.new_event_loop()
            return loop.run_until_complete(eval(code, namespace))
        return eval(code, namespace)

    def silenced(source, lines, expr):
        """Whether the expression's line goes on with ";" (a comment may
        follow), which asks for no value as in IPython."""
        if lines is None:
            lines = source.decode("utf-8", "surrogateescape").splitlines(keepends=True)
        line = lines[expr.end_lineno - 1].encode("utf-8", "surrogateescape")
        return line[expr.end_col_offset:].lstrip().startswith(b";")

    def given_globals(namespace):
        """Values a client gave as JSON (sandpad-mcp's global_variables)
        become globals before the snippet runs; the variable goes, so the
        snippet's environment is what it would be without them."""
        import os

        text = os.environ.pop("SANDPAD_GLOBALS", None)
        if text:
            import json

            values = json.loads(text)
            if isinstance(values, dict):
                namespace.update(values)

    def run_snippet(path, namespace):
        """Runs the file at path in namespace; its exceptions propagate."""
        given_globals(namespace)
        with open(path, "rb") as f:
            source = f.read()
        run_source(source, path, namespace)

    def run_source(source, path, namespace, show=True):
        """Runs source; a trailing expression's value is shown, or with
        show False returned (None when there is none to show)."""
        tree, lines = parse(source, path)
        last = tree.body[-1] if tree.body else None
        if isinstance(last, _ast.Expr):
            tree.body.pop()
        flags = top_level_await
        run_code(compile(tree, path, "exec", flags, dont_inherit=True), namespace)
        if isinstance(last, _ast.Expr):
            expr = _ast.Expression(last.value)
            value = run_code(compile(expr, path, "eval", flags, dont_inherit=True), namespace)
            if value is not None and not silenced(source, lines, last):
                if not show:
                    return value
                _sandpad_show_value(value)
        return None

    def user_traceback(tb, path):
        """From the snippet's first frame on: what a plain run shows (a
        SyntaxError has none). Frames of this file past it (a magic's
        helper between the snippet's line and the code it ran) are left
        out, as IPython's own are."""
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next
        own = user_traceback.__code__.co_filename
        link = tb
        while link is not None:
            while link.tb_next is not None \
                    and link.tb_next.tb_frame.f_code.co_filename == own:
                link.tb_next = link.tb_next.tb_next
            link = link.tb_next
        return tb

    def main():
        """A cold run: python3 -c, with the snippet's path and arguments
        after it; made into what python3 SNIPPET ARGS would have."""
        import builtins
        import types

        path = sys.argv[1]
        del sys.argv[0]
        sys.path[0] = path.rpartition("/")[0] or "/"
        module = types.ModuleType("__main__")
        module.__file__ = path
        module.__builtins__ = builtins
        module.__cached__ = None
        sys.modules["__main__"] = module
        try:
            run_snippet(path, module.__dict__)
        except SystemExit:
            raise
        except BaseException as error:
            tb = user_traceback(error.__traceback__, path)
            error.__traceback__ = tb
            sys.excepthook(type(error), error, tb)
            interrupted = isinstance(error, KeyboardInterrupt)
            del error, tb
            if interrupted:
                # As python3 ends on an uncaught one: by the signal.
                import atexit
                import os
                import signal

                atexit._run_exitfuncs()
                sys.stdout.flush()
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGINT)
            raise SystemExit(1) from None

    return run_snippet, user_traceback, main


_sandpad_run_snippet, _sandpad_user_traceback, _sandpad_main = _sandpad_snippets()
del _sandpad_snippets


# Rich results, Jupyter's way: display() (IPython's name and signature) and
# the display protocol (_repr_mimebundle_, _repr_png_, _repr_html_, ...).
# Each display is one MIME bundle, written to fd 1 as a marker the runner
# takes out of the output at its place (runner-display.h) and sends as a
# "display" event. A trailing expression's value goes through it too.
def _sandpad_display_setup():
    import builtins

    max_body = 3 * 1024 * 1024 - 4096  # RUNNER_DISPLAY_MAX_BODY, less the marker
    max_items = 16
    table_rows = 1000
    table_columns = 32  # SP_DATA_TABLE_MAX_COLUMNS: the app keeps no more
    reprs = (("_repr_html_", "text/html"), ("_repr_markdown_", "text/markdown"),
             ("_repr_svg_", "image/svg+xml"), ("_repr_png_", "image/png"),
             ("_repr_jpeg_", "image/jpeg"), ("_repr_latex_", "text/latex"),
             ("_repr_json_", "application/json"))

    class Printer:
        """Enough of IPython's pretty printer for _repr_pretty_."""

        def __init__(self):
            self.parts = []
            self.level = 0

        def text(self, obj):
            self.parts.append(str(obj))

        def breakable(self, sep=" "):
            self.parts.append(sep)

        def newline(self):
            self.parts.append("\n" + " " * self.level)

        def pretty(self, obj):
            self.parts.append(plain_text(obj))

        def begin_group(self, indent=0, open=""):
            self.level += indent
            self.parts.append(open)

        def end_group(self, dedent=0, close=""):
            self.level -= dedent
            self.parts.append(close)

        def group(self, indent=0, open="", close=""):
            import contextlib

            @contextlib.contextmanager
            def grouped():
                self.begin_group(indent, open)
                try:
                    yield
                finally:
                    self.end_group(indent, close)
            return grouped()

        def indent(self, indent):
            return self.group(indent)

        def flush(self):
            pass

    def plain_text(obj):
        method = getattr(type(obj), "_repr_pretty_", None)
        if method is not None:
            printer = Printer()
            method(obj, printer, False)
            return "".join(printer.parts)
        return repr(obj)

    def first(value):
        # A _repr_*_ may answer (data, metadata).
        if isinstance(value, tuple) and len(value) == 2:
            return value[0]
        return value

    def latex_png(latex):
        """LaTeX as a PNG, through matplotlib's mathtext (no TeX needed)."""
        import base64
        import io

        from matplotlib import mathtext

        text = latex.strip()
        while text.startswith("$$") and text.endswith("$$") and len(text) > 4:
            text = text[1:-1]
        if not (text.startswith("$") and text.endswith("$")):
            text = "$" + text + "$"
        text = text.replace("\\displaystyle", "")
        out = io.BytesIO()
        # Twice 96 dpi: matplotlib's 10 pt text then, shown at half size
        # (png-scale 2), is output text's size, and sharp on a 2x display.
        mathtext.math_to_image(text, out, dpi=192, format="png")
        return base64.b64encode(out.getvalue()).decode("ascii")

    def table_json(obj):
        """A pandas DataFrame or Series as Frictionless table data (its first
        rows and columns, with how many there are). A frame of 10**4 columns
        sent whole passed the size cap and showed as text: the app keeps 32
        columns, so no more are sent."""
        import json

        head = obj.head(table_rows)
        columns = obj.shape[1] if len(obj.shape) == 2 else None
        if columns is not None and columns > table_columns:
            head = head.iloc[:, :table_columns]
        data = json.loads(head.to_json(orient="table", default_handler=str))
        data["total_rows"] = int(len(obj))
        if columns is not None:
            data["total_columns"] = int(columns)
        return data

    def is_pandas(obj):
        module = getattr(type(obj), "__module__", "") or ""
        return module.startswith("pandas.") and type(obj).__name__ in ("DataFrame", "Series")

    def bundle_of(obj, include=None, exclude=None):
        data = {}
        method = getattr(obj, "_repr_mimebundle_", None)
        if method is not None and not isinstance(obj, type):
            try:
                given = first(method(include=include, exclude=exclude))
            except TypeError:
                given = first(method())
            if isinstance(given, dict):
                data.update(given)
        for name, mime in reprs:
            # One picture once: PNG where there is one (newer Pillow gives
            # a PIL image as JPEG too).
            if mime in data or (mime == "image/jpeg" and "image/png" in data):
                continue
            method = getattr(obj, name, None)
            if method is None or isinstance(obj, type):
                continue
            value = first(method())
            if value is None:
                continue
            if isinstance(value, bytes):
                import base64

                value = base64.b64encode(value).decode("ascii")
            data[mime] = value
        if "text/latex" in data and "image/png" not in data:
            try:
                data["image/png"] = latex_png(data["text/latex"])
                data["application/vnd.sandpad.png-scale+json"] = 2
            except Exception:
                pass
        if is_pandas(obj) and "application/vnd.dataresource+json" not in data:
            try:
                data["application/vnd.dataresource+json"] = table_json(obj)
            except Exception:
                pass
        if "text/plain" not in data:
            data["text/plain"] = plain_text(obj)
        if include is not None:
            data = {k: v for k, v in data.items() if k in include or k == "text/plain"}
        if exclude is not None:
            data = {k: v for k, v in data.items() if k not in exclude or k == "text/plain"}
        return data

    def json_safe(value, depth=0):
        """value as JSON the runner's decoder takes: integers past 64 bits
        (a uint64 column, a Python big int) and what JSON cannot hold as
        their text, NaN and infinities as null, keys as strings."""
        import math

        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int):
            return value if -(1 << 63) <= value < (1 << 63) else str(value)
        if isinstance(value, float):
            return value if math.isfinite(value) else None
        if depth > 64:
            return str(value)
        if isinstance(value, dict):
            return {str(k): json_safe(v, depth + 1) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [json_safe(v, depth + 1) for v in value]
        return str(value)

    def encode(data):
        """The bundle as the runner takes it: valid MIME names, text types as
        strings, within the size cap (the largest go first, text/plain last)."""
        import json

        clean = {}
        for mime, value in data.items():
            if not isinstance(mime, str) or mime.count("/") != 1 or len(mime) > 127:
                continue
            is_json = mime == "application/json" or mime.endswith("+json")
            if isinstance(value, bytes):
                import base64

                value = base64.b64encode(value).decode("ascii")
            if not is_json and not isinstance(value, str):
                value = str(value)
            try:
                if is_json:
                    value = json_safe(value)
                json.dumps(value, allow_nan=False)
            except Exception:
                continue
            clean[mime] = value
        while True:
            items = sorted(clean.items(), key=lambda kv: kv[0] != "text/plain")[:max_items]
            text = json.dumps(dict(items), ensure_ascii=True, separators=(",", ":"), default=str)
            if len(text) <= max_body:
                return text
            others = [k for k in clean if k != "text/plain"]
            if not others:
                clean["text/plain"] = clean["text/plain"][: max_body // 8] + "\n[...]"
                continue
            del clean[max(others, key=lambda k: len(json.dumps(clean[k], default=str)))]

    def publish(data):
        import os

        token = os.environ.get("SANDPAD_DISPLAY_TOKEN", "")
        if not data:
            return
        if "text/plain" not in data:
            data = dict(data, **{"text/plain": ""})
        if not token:
            print(data.get("text/plain", ""))
            return
        marker = ("\033]sandpad-display;%s;%s\a" % (token, encode(data))).encode("ascii")
        # Whatever was printed before comes first.
        for stream in (sys.stdout, sys.__stdout__):
            try:
                stream.flush()
            except Exception:
                pass
        view = memoryview(marker)
        while view:
            view = view[os.write(1, view):]

    def display(*objs, include=None, exclude=None, metadata=None, transient=None,
                display_id=None, raw=False, clear=False, **kwargs):
        """Shows each object as rich output (IPython's display()): its
        _repr_mimebundle_ or _repr_*_ methods, else its repr; with raw=True
        each object is a MIME bundle {mime: value} already."""
        for obj in objs:
            publish(dict(obj) if raw else bundle_of(obj, include, exclude))

    def show_value(value):
        """A trailing expression's value, as Jupyter's displayhook shows it."""
        if value is None:
            return
        builtins._ = None
        display(value)
        builtins._ = value

    builtins.display = display

    # PIL's Image.show() opens a viewer on a display the run has not: it
    # shows the image as a result instead.
    class Viewer:
        def show(self, image, **options):
            display(image)
            return 1

    def patch_imageshow(module):
        module.register(Viewer(), 0)

    _sandpad_when_imported("PIL.ImageShow", patch_imageshow)
    return show_value


_sandpad_show_value = _sandpad_display_setup()
del _sandpad_display_setup


# IPython's display names for a snippet written in Jupyter
# (`from IPython.display import display, Math, HTML`): when no real IPython
# can be imported, a small IPython.display is made from this text, its
# objects shown through display() above. The finder goes last in
# sys.meta_path, so an IPython that is installed (a venv's, a folder's)
# is always the one imported.
def _sandpad_ipython_setup():
    import builtins

    source = '''
import base64 as _base64
import builtins as _builtins
import json as _json

display = _builtins.display


class DisplayObject:
    """IPython.display's base: data given, or read from filename."""
    _read_mode = "r"

    def __init__(self, data=None, url=None, filename=None, metadata=None):
        if data is None and filename is not None:
            with open(filename, self._read_mode) as f:
                data = f.read()
        self.data = data
        self.url = url
        self.filename = filename
        self.metadata = metadata

    def __repr__(self):
        return "<IPython.core.display.%s object>" % type(self).__name__


class TextDisplayObject(DisplayObject):
    def _text(self):
        data = self.data
        if isinstance(data, bytes):
            data = data.decode("utf-8", "replace")
        return "" if data is None else str(data)


class HTML(TextDisplayObject):
    def _repr_html_(self):
        return self._text()


class Markdown(TextDisplayObject):
    def _repr_markdown_(self):
        return self._text()


class Latex(TextDisplayObject):
    def _repr_latex_(self):
        return self._text()


class Math(TextDisplayObject):
    def _repr_latex_(self):
        return "$\\\\displaystyle %s$" % self._text().strip("$")


class SVG(TextDisplayObject):
    def _repr_svg_(self):
        return self._text()


class Pretty(TextDisplayObject):
    def __repr__(self):
        return self._text()


class JSON(DisplayObject):
    def __init__(self, data=None, url=None, filename=None, expanded=False, metadata=None,
                 root="root", **kwargs):
        super().__init__(data, url, filename, metadata)
        if isinstance(self.data, (str, bytes)):
            self.data = _json.loads(self.data)

    def _repr_json_(self):
        return self.data


class Image(DisplayObject):
    _read_mode = "rb"

    def __init__(self, data=None, url=None, filename=None, format=None, embed=None,
                 width=None, height=None, retina=False, unconfined=False, metadata=None,
                 alt=None):
        if isinstance(data, str) and filename is None and url is None:
            filename, data = data, None
        super().__init__(data, url, filename, metadata)
        if format is None and filename is not None:
            format = filename.rpartition(".")[2].lower()
        if format is None and isinstance(self.data, bytes):
            format = "png" if self.data[:8] == b"\\x89PNG\\r\\n\\x1a\\n" else "jpeg"
        self.format = "jpeg" if format == "jpg" else format
        self.width = width
        self.height = height

    def _repr_png_(self):
        return self.data if self.format == "png" else None

    def _repr_jpeg_(self):
        return self.data if self.format == "jpeg" else None


def clear_output(wait=False):
    """Nothing to clear: each display stays where it was shown."""


def update_display(obj, display_id=None, **kwargs):
    display(obj, **kwargs)
'''

    class Loader:
        def create_module(self, spec):
            return None

        def exec_module(self, module):
            if module.__name__ == "IPython.display":
                exec(compile(source, "<IPython.display>", "exec"), module.__dict__)
            else:
                module.__path__ = []
                module.display = builtins.display
                # No shell: what libraries ask once IPython is imported.
                # matplotlib's canvas asks both before each figure (3.9 and
                # later read version_info first: without it no figure, no
                # formula was drawn once the snippet had imported these).
                # A version no real IPython has says this is none.
                module.get_ipython = lambda: None
                module.version_info = (0, 0, 0, "sandpad")
                module.__version__ = "0.0.0+sandpad"

    class Finder:
        names = ("IPython", "IPython.display")

        def find_spec(self, name, path=None, target=None):
            if name not in self.names:
                return None
            import importlib.machinery

            return importlib.machinery.ModuleSpec(name, Loader(),
                                                  is_package=name == "IPython")

    sys.meta_path.append(Finder())


_sandpad_ipython_setup()
del _sandpad_ipython_setup


# IPython's shell syntax in a snippet written in Jupyter: `!cmd`,
# `x = !cmd`, the common line magics (%cd, %pwd, %env, %time, %timeit,
# %matplotlib) and cell magics (%%bash, %%sh, %%time, %%writefile, %%html,
# %%markdown, %%latex, %%svg, %%javascript), with IPython's meaning. The
# snippet's lines become calls to the object made here (see
# ipython_source), and only when Python rejects the snippet as written.
def _sandpad_magics(run_source):
    import builtins
    import os
    import subprocess
    from time import perf_counter

    class UsageError(Exception):
        """IPython's name for a magic used wrongly."""

    # Shown as IPython shows it: "UsageError: ...".
    UsageError.__module__, UsageError.__qualname__ = "builtins", "UsageError"

    def cpu():
        import resource

        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime, usage.ru_stime

    def caller():
        frame = sys._getframe(2)
        code = frame.f_code
        return frame.f_globals, frame.f_locals, code.co_filename, frame.f_lineno

    def expand(command, namespace):
        """{expression} and $name from the snippet's variables, as IPython
        expands a shell command; $$ is one $. When one cannot be expanded
        the command is left as written (a shell's own $HOME stays)."""
        import re

        def value(match):
            text = match.group(0)
            if text == "$$":
                return "$"
            if text.startswith("{"):
                return str(eval(text[1:-1], namespace))
            return str(namespace[text[1:]])

        try:
            return re.sub(r"\$\$|\$[A-Za-z_]\w*|\{[^{}]*\}", value, command)
        except Exception:
            return command

    def shell():
        path = os.environ.get("SHELL", "")
        usable = path.startswith("/") and os.access(path, os.X_OK)
        return path if usable else "/bin/sh"

    def flush():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass

    def namespace_of(g, l):
        if l is g:
            return g
        merged = dict(g)
        merged.update(l)
        return merged

    def time_text(seconds):
        """A duration as IPython prints it: three figures and a unit."""
        if seconds >= 60:
            minutes, seconds = divmod(seconds, 60)
            return "%dmin %.0fs" % (minutes, seconds)
        units = (("s", 1.0), ("ms", 1e3), ("\u00b5s", 1e6), ("ns", 1e9))
        for unit, scale in units:
            # Rounded before the unit is chosen: a microsecond measured
            # as 0.9999... is "1 \u00b5s", not "1e+03 ns".
            shown = float("%.3g" % (seconds * scale))
            if shown >= 1 or unit == "ns":
                return "%.3g %s" % (shown, unit)

    def times_text(before, start):
        after, wall = cpu(), perf_counter() - start
        user, system = after[0] - before[0], after[1] - before[1]
        return "CPU times: user %s, sys: %s, total: %s\nWall time: %s" % (
            time_text(user), time_text(system), time_text(user + system),
            time_text(wall))

    def compiled(text, path, lineno, mode):
        # The code at its own line of the snippet, so a traceback reads it.
        text = "\n" * (lineno - 1) + text
        return compile(text, path, mode, dont_inherit=True)

    class Magics:
        def system(self, command):
            g, l, _, _ = caller()
            flush()
            command = expand(command, namespace_of(g, l))
            code = subprocess.call([shell(), "-c", command])
            g["_exit_code"] = code

        def getoutput(self, command):
            g, l, _, _ = caller()
            flush()
            command = expand(command, namespace_of(g, l))
            done = subprocess.run([shell(), "-c", command],
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
            g["_exit_code"] = done.returncode
            return done.stdout.decode("utf-8", "replace").splitlines()

        def line(self, name, arg):
            g, l, path, lineno = caller()
            method = getattr(self, "line_" + name, None)
            if method is None:
                if name in ("conda", "mamba", "uv"):
                    raise UsageError(
                        "%%%s: a run cannot install packages (it has no "
                        "network); install them with the Packages dialog, "
                        "`sandpad-run --install`, or the MCP tool "
                        "install_packages, then run again" % name)
                raise UsageError("Line magic function `%%%s` not found." % name)
            return method(arg, namespace_of(g, l), g, path, lineno)

        def cell(self, name, arg, body):
            g, l, path, lineno = caller()
            method = getattr(self, "cell_" + name, None)
            if method is None:
                raise UsageError("Cell magic `%%%%%s` not found." % name)
            return method(arg, body, g, path, lineno + 1)

        def line_cd(self, arg, namespace, g, path, lineno):
            target = os.path.expanduser(arg.strip("'\"") or "~")
            if target == "-":
                target = g.get("_dh", [os.getcwd()])[-1]
            previous = os.getcwd()
            os.chdir(target)
            g["_dh"] = g.get("_dh", []) + [previous]
            print(os.getcwd())

        def line_pwd(self, arg, namespace, g, path, lineno):
            return os.getcwd()

        def line_env(self, arg, namespace, g, path, lineno):
            if not arg:
                return dict(os.environ)
            key, sep, value = arg.partition("=")
            if not sep:
                key, _, value = arg.partition(" ")
                if not value.strip():
                    return os.environ[key]
            key, value = key.strip(), expand(value.strip(), namespace)
            os.environ[key] = value
            print("env: %s=%s" % (key, value))

        def line_pip(self, arg, namespace, g, path, lineno):
            """A notebook's `%pip install a b` where the run has them
            already (the system's numpy, a venv's packages): said as pip
            says it, and the run goes on. A run cannot install (no
            network): anything else says how to."""
            import re
            import shlex
            from importlib import metadata

            how = ("install them with the Packages dialog, `sandpad-run "
                   "--install`, or the MCP tool install_packages, then run "
                   "again")
            try:
                words = shlex.split(expand(arg, namespace))
            except ValueError:
                words = []
            quiet = False
            specs = []
            for word in words[1:]:
                if word in ("-q", "--quiet", "-qq", "-U", "--upgrade",
                            "--user", "--no-cache-dir"):
                    quiet = quiet or word.startswith(("-q", "--quiet"))
                elif word.startswith("-"):
                    specs = None  # -r FILE, -e DIR, --index-url...: pip's own
                    break
                else:
                    specs.append(word)
            if not words or words[0] != "install" or not specs:
                raise UsageError("%pip: a run cannot install packages (it "
                                 "has no network); " + how)
            missing, found = [], []
            for spec in specs:
                m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?"
                             r"\s*(==\s*([^,;\s]+))?", spec)
                try:
                    version = metadata.version(m.group(1)) if m else None
                except metadata.PackageNotFoundError:
                    version = None
                # As runner_pep723_missing: a pin must match; a range
                # takes any installed version.
                if version is None or (m.group(3) and m.group(3) != version):
                    missing.append(spec)
                else:
                    found.append("Requirement already satisfied: %s (%s)"
                                 % (m.group(1), version))
            if missing:
                raise UsageError("%%pip: %s not installed here, and a run "
                                 "cannot install packages (it has no "
                                 "network); %s" % (", ".join(missing), how))
            if not quiet:
                print("\n".join(found))

        def line_matplotlib(self, arg, namespace, g, path, lineno):
            """Charts show in the panel already: nothing to switch."""

        def line_time(self, arg, namespace, g, path, lineno):
            try:
                code, mode = compiled(arg, path, lineno, "eval"), "eval"
            except SyntaxError:
                code, mode = compiled(arg, path, lineno, "exec"), "exec"
            before, start = cpu(), perf_counter()
            try:
                value = eval(code, g, namespace if namespace is not g else None)
            finally:
                print(times_text(before, start))
            return value if mode == "eval" else None

        def line_timeit(self, arg, namespace, g, path, lineno):
            import timeit

            words = arg.split()
            number = repeat = None
            while words and words[0] in ("-n", "-r"):
                if len(words) < 2 or not words[1].isdigit():
                    raise UsageError("%timeit: -n and -r take a number")
                if words[0] == "-n":
                    number = int(words[1])
                else:
                    repeat = int(words[1])
                words = words[2:]
            statement = arg[arg.index(words[0]):] if words else "pass"
            # A syntax error at its own line.
            compiled(statement, path, lineno, "exec")
            timer = timeit.Timer(statement, globals=namespace)
            if number is None:
                number = timer.autorange()[0]
            times = [t / number for t in timer.repeat(repeat or 7, number)]
            mean = sum(times) / len(times)
            spread = (sum((t - mean) ** 2 for t in times) / len(times)) ** 0.5
            runs, loops = len(times), format(number, ",")
            print("%s \u00b1 %s per loop (mean \u00b1 std. dev. of %d run%s, "
                  "%s loop%s each)" % (time_text(mean), time_text(spread), runs,
                                       "" if runs == 1 else "s", loops,
                                       "" if number == 1 else "s"))

        def cell_bash(self, arg, body, g, path, lineno, program="bash"):
            flush()
            found = next((d + "/" + program for d in ("/usr/bin", "/bin")
                          if os.access(d + "/" + program, os.X_OK)), None)
            if found is None:
                raise UsageError("%%%%%s: %s is not installed" % (program,
                                                                   program))
            script = body.encode("utf-8", "surrogateescape")
            code = subprocess.run([found], input=script).returncode
            if code != 0:
                raise subprocess.CalledProcessError(code, program)

        def cell_sh(self, arg, body, g, path, lineno):
            return self.cell_bash(arg, body, g, path, lineno, program="sh")

        def cell_time(self, arg, body, g, path, lineno):
            before, start = cpu(), perf_counter()
            try:
                text = "\n" * (lineno - 1) + body
                value = run_source(text.encode("utf-8", "surrogateescape"), path, g,
                                   show=False)
            finally:
                print(times_text(before, start))
            # After the times, as IPython shows the cell's value.
            if value is not None:
                _sandpad_show_value(value)

        def cell_writefile(self, arg, body, g, path, lineno):
            words = arg.split()
            append = bool(words) and words[0] in ("-a", "--append")
            name = " ".join(words[1:] if append else words).strip("'\"")
            if not name:
                raise UsageError("%%writefile: which file?")
            name = os.path.expanduser(name)
            exists = os.path.exists(name)
            print(("Appending to %s" if append else "Overwriting %s" if exists
                   else "Writing %s") % name)
            with open(name, "a" if append else "w", encoding="utf-8",
                      errors="surrogateescape") as f:
                f.write(body)

        def shown(self, mime, body, name):
            # Through display(), as IPython's objects: a formula gets its PNG.
            class Shown:
                def _repr_mimebundle_(self, include=None, exclude=None):
                    return {mime: body}

                def __repr__(self):
                    return "<IPython.core.display.%s object>" % name

            builtins.display(Shown())

        def cell_html(self, arg, body, g, path, lineno):
            self.shown("text/html", body, "HTML")

        def cell_markdown(self, arg, body, g, path, lineno):
            self.shown("text/markdown", body, "Markdown")

        def cell_latex(self, arg, body, g, path, lineno):
            self.shown("text/latex", body, "Latex")

        def cell_svg(self, arg, body, g, path, lineno):
            self.shown("image/svg+xml", body, "SVG")

        def cell_javascript(self, arg, body, g, path, lineno):
            self.shown("application/javascript", body, "Javascript")

        cell_HTML = cell_html
        cell_js = cell_javascript

    return Magics()
