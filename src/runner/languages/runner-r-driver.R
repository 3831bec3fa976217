# Sandpad's R driver (issue 42): how every R snippet runs, cold or in a
# session, inside the run's sandbox (it adds no way in or out: it runs
# what Rscript would run, in the same process).
#
# Rscript runs a file without saying where an error happened: R's message
# names the call, never the line. So the driver parses the snippet keeping
# its source, evaluates each top-level expression in the global
# environment and prints its value when visible (what Rscript does), says
# warnings as they come, and on an error writes R's message, then
# "  at FILE:LINE in FUNC" from the innermost call out (the line where
# each statement starts, what R's srcrefs know), ending with the top-level
# expression's line. runner-error.c reads that back into the run's
# program_error. commandArgs(TRUE) is the run's arguments alone.
#
#   Rscript --vanilla -e DRIVER FILE ARGS...            a cold run
#   Rscript --vanilla DRIVER-FILE --session CMD RESULT  a session
#
# A session reads one line per run from the FIFO CMD: the snippet's path,
# the number of arguments, the arguments, then the run's variables as
# name and value pairs, each field percent-encoded and separated by
# spaces (runner-session-node.py writes it from run.json). The variables
# hold for that run and are put back after. It answers on the FIFO RESULT
# with one JSON line: {"exit":N} or {"signal":2}, and "cpu_ns". A run's
# stdin is not the session's to read: R reads its file("stdin") on fd 0,
# which stays /dev/null in a session.
local({
  a <- commandArgs(TRUE)
  run_args <- character()
  # readline() as a person at a console means it: Rscript's answers ""
  # at once (it is not interactive), so a script asking for input never
  # waited for the window's input line. This one writes the prompt and
  # reads a line of the run's stdin (one connection for the run, so what
  # it buffered is not lost between calls); at the end of input, "".
  stdin_con <- NULL
  attach(list(commandArgs = function(trailingOnly = FALSE) {
    if (trailingOnly) run_args else base::commandArgs(FALSE)
  }, readline = function(prompt = "") {
    cat(prompt)
    flush(stdout())
    if (is.null(stdin_con)) {
      stdin_con <<- file("stdin")
      open(stdin_con)
    }
    line <- readLines(stdin_con, n = 1L, warn = FALSE)
    if (length(line) == 0L) "" else line
  }), name = "sandpad", warn.conflicts = FALSE)
  options(keep.source = TRUE, warn = 1)
  # Charts, as a Python run's matplotlib figures: every page a plot draws
  # on the default device becomes plot-N.png in the working directory
  # (N going on across a session's runs), which the run reports as a
  # created image and the window shows inline; not Rplots.pdf. Pages go
  # to a folder in the run's /tmp first, one name pattern per device
  # (each counts its pages from 1), and are moved at the run's end, when
  # the devices are closed and their files whole.
  plot_dir <- file.path(tempdir(), "sandpad-plots")
  devices <- 0L
  plots <- 0L
  options(device = function(...) {
    dir.create(plot_dir, showWarnings = FALSE)
    devices <<- devices + 1L
    grDevices::png(file.path(plot_dir, sprintf("d%04d-p%%04d.png", devices)), width = 7,
                   height = 5, units = "in", res = 96, type = "cairo")
  })
  save_plots <- function() {
    grDevices::graphics.off()
    for (page in sort(list.files(plot_dir, full.names = TRUE))) {
      plots <<- plots + 1L
      file.copy(page, sprintf("plot-%d.png", plots), overwrite = TRUE)
      unlink(page)
    }
  }
  top_call <- quote(eval(ex[[i]], globalenv()))
  said <- function(kind, call) {
    if (is.null(call) || identical(call, top_call)) paste0(kind, ": ")
    else paste0(kind, " in ", paste(deparse(call, nlines = 1L), collapse = ""), " : ")
  }
  # 0 when every expression ran, 1 after an error (said on stderr).
  run_file <- function(f) {
    ex <- tryCatch(parse(f, keep.source = TRUE), error = function(e) {
      cat("Error: ", conditionMessage(e), "\n", sep = "", file = stderr())
      NULL
    })
    if (is.null(ex)) return(1L)
    refs <- attr(ex, "srcref")
    for (i in seq_along(ex)) {
      ran <- tryCatch({
        withCallingHandlers({
          r <- withVisible(eval(ex[[i]], globalenv()))
          if (r$visible) {
            if (isS4(r$value)) methods::show(r$value) else print(r$value)
          }
        }, warning = function(w) {
          cat(said("Warning", conditionCall(w)), conditionMessage(w), "\n", sep = "",
              file = stderr())
          invokeRestart("muffleWarning")
        }, error = function(e) {
          calls <- sys.calls()
          top <- Position(function(c) identical(c, top_call), calls)
          out <- paste0(said("Error", conditionCall(e)), conditionMessage(e))
          if (!is.na(top)) {
            for (k in rev(seq_along(calls))) {
              if (k <= top) break
              s <- attr(calls[[k]], "srcref")
              if (is.null(s)) next
              fn <- if (k - 1 > top && is.name(calls[[k - 1]][[1]]))
                paste0(" in ", as.character(calls[[k - 1]][[1]])) else ""
              out <- c(out, sprintf("  at %s:%d%s", attr(s, "srcfile")$filename, s[1], fn))
            }
          }
          out <- c(out, sprintf("  at %s:%d", f, refs[[i]][1]))
          cat(out, sep = "\n", file = stderr())
        })
        TRUE
      }, error = function(e) FALSE)
      if (!ran) return(1L)
    }
    0L
  }

  if (length(a) < 3 || a[1] != "--session") {
    run_args <- a[-1]
    status <- run_file(a[1])
    save_plots()
    q("no", status, FALSE)
  }

  cmd <- fifo(a[2], "r", blocking = TRUE)
  result <- fifo(a[3], "w", blocking = TRUE)
  repeat {
    # SIGINT between runs is nothing (the runner's interrupt came late).
    line <- tryCatch(readLines(cmd, n = 1L), interrupt = function(i) NA_character_)
    if (length(line) == 0L) q("no", 0L, FALSE)
    if (is.na(line)) next
    fields <- vapply(strsplit(line, " ", fixed = TRUE)[[1]], utils::URLdecode, "",
                     USE.NAMES = FALSE)
    n <- as.integer(fields[2])
    run_args <- fields[seq_len(n) + 2L]
    vars <- fields[-seq_len(n + 2L)]
    names_ <- vars[c(TRUE, FALSE)]
    was <- vapply(names_, function(v) Sys.getenv(v, unset = NA), "", USE.NAMES = FALSE)
    if (length(names_) > 0L)
      do.call(Sys.setenv, as.list(stats::setNames(vars[c(FALSE, TRUE)], names_)))
    before <- proc.time()
    status <- tryCatch(run_file(fields[1]), interrupt = function(i) {
      cat("Interrupted (SIGINT)\n", file = stderr())
      -2L
    })
    save_plots()
    used <- proc.time() - before
    for (k in seq_along(names_)) {
      if (is.na(was[k])) Sys.unsetenv(names_[k])
      else do.call(Sys.setenv, stats::setNames(list(was[k]), names_[k]))
    }
    run_args <- character()
    answer <- if (status == -2L) '{"signal":2' else sprintf('{"exit":%d', status)
    writeLines(sprintf('%s,"cpu_ns":%.0f}', answer, (used[[1]] + used[[2]]) * 1e9), result)
    flush(result)
  }
})
