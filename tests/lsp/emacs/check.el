;;; check.el --- Emacs + eglot as a real LSP client of autograd-lint  -*- lexical-binding: t -*-
;;
;;   AGL_SERVER=/path/to/autograd-lint AGL_FILE=train.py emacs --batch -q -l check.el
;;
;; `-q', not `-Q': Debian's site-start puts elpa-eglot on the load path.  Prints one
;; `DIAG <line> <char> <type> <text>' line per flymake diagnostic (1-based line, 0-based
;; character offset in the line), then `HOVER <text>' for the first AG001, then `DONE';
;; exits 1 when something never arrives.

(require 'eglot)
(require 'flymake)
(require 'python)

(defun agl-out (format-string &rest args)
  (princ (concat (apply #'format format-string args) "\n")))

(defun agl-finish (ok message)
  (when message (agl-out "%s" message))
  (kill-emacs (if ok 0 1)))

(setq eglot-server-programs `((python-mode . (,(getenv "AGL_SERVER") "lsp"))))
(setq eglot-sync-connect t)
(find-file (getenv "AGL_FILE"))
(python-mode)
(condition-case err
    (apply #'eglot (eglot--guess-contact))
  (error (agl-finish nil (format "FAIL eglot: %S" err))))

(defun agl-ag001 ()
  (seq-find (lambda (d) (string-match-p "carries the graph" (flymake-diagnostic-text d)))
            (flymake-diagnostics)))

(let ((server (eglot-current-server))
      (deadline (+ (float-time) (string-to-number (or (getenv "AGL_TIMEOUT") "60")))))
  (unless server (agl-finish nil "FAIL no server"))
  (while (and (null (agl-ag001)) (< (float-time) deadline))
    (flymake-start)
    (accept-process-output nil 0.1))
  (dolist (d (flymake-diagnostics))
    (let ((beg (flymake-diagnostic-beg d)))
      (agl-out "DIAG %d %d %s %s"
               (line-number-at-pos beg)
               (save-excursion (goto-char beg) (- beg (line-beginning-position)))
               (flymake-diagnostic-type d)
               (car (split-string (flymake-diagnostic-text d) "\n")))))
  (let ((diagnostic (agl-ag001)))
    (unless diagnostic (agl-finish nil "FAIL no AG001 diagnostic"))
    (agl-out "EVIDENCE %s" (string-join (cdr (split-string (flymake-diagnostic-text diagnostic) "\n")) " | "))
    (goto-char (flymake-diagnostic-beg diagnostic))
    (let* ((hover (jsonrpc-request server :textDocument/hover
                                   (eglot--TextDocumentPositionParams)))
           (contents (plist-get hover :contents)))
      (unless contents (agl-finish nil "FAIL no hover"))
      (agl-out "HOVER %s" (if (stringp contents) contents (plist-get contents :value)))))
  (eglot-shutdown server)
  (agl-finish t "DONE"))
