;;; sbpl_check.scm: a structural checker for the Seatbelt profiles libsandbox
;;; renders, runnable on Linux with Debian's guile-3.0.
;;;
;;;   guile --no-auto-compile -s sbpl_check.scm PROFILE PARAMS QUERIES
;;;
;;; PROFILE  the raw SBPL text, exactly as given to sandbox-exec -p
;;; PARAMS   one S-expression: an alist (("KEY" . "value") ...), the -D values
;;; QUERIES  S-expressions (expect VERDICT OPERATION ARGUMENT), where VERDICT is
;;;          allow or deny, OPERATION a concrete operation (file-write-data,
;;;          network-outbound, mach-lookup, job-creation, lsopen, ...) and
;;;          ARGUMENT a path string (file and process-exec operations),
;;;          (unix "/socket/path"), (inet "host:port"), a Mach service name,
;;;          a sysctl name, (socket AF_UNIX) for system-socket, or
;;;          (process same) / (process other) for the
;;;          process a signal or an inspection is aimed at
;;;
;;; It reads the profile as S-expressions (a reader extension handles the
;;; #"..." regex literals), insists on (version 1) first, balanced forms, only
;;; allow/deny rules, only the operations and filters in the tables below, and
;;; every (param "K") defined. It then answers each query the way Seatbelt
;;; decides: the default rule gives the answer unless a rule whose operation
;;; and filters match says otherwise, and among those the last one wins.
;;; Exit 0 when everything holds, 1 with one line per problem otherwise.

(use-modules (ice-9 regex) (ice-9 rdelim) (srfi srfi-1))

;; #"..." is a regex literal in SBPL: its text runs to the next double quote,
;; with no escapes. Read it as (%regex "text").
(read-hash-extend #\"
  (lambda (chr port)
    (let loop ((acc '()))
      (let ((c (read-char port)))
        (cond ((eof-object? c) (error "unterminated #\" regex literal"))
              ((char=? c #\") (list '%regex (list->string (reverse acc))))
              (else (loop (cons c acc))))))))

(define problems 0)
(define (problem . parts)
  (set! problems (+ problems 1))
  (display "FAIL - ")
  (for-each display parts)
  (newline))

(define known-operations
  '(default
    file* file-read* file-read-data file-read-metadata file-read-xattr
    file-write* file-write-data file-write-create file-write-unlink file-write-mode
    file-write-owner file-write-times file-write-xattr file-write-flags
    file-map-executable file-ioctl file-link file-clone
    network* network-outbound network-inbound network-bind system-socket
    process-exec* process-exec process-fork process-info*
    signal sysctl-read sysctl-write mach-lookup mach-host* user-preference-read
    ipc-posix-sem ipc-posix-shm pseudo-tty
    job-creation lsopen appleevent-send))

(define known-filters
  '(literal subpath regex path-literal param local remote target global-name
    global-name-prefix sysctl-name require-all require-any require-not
    path-regex extension socket-domain))

;; Operations that are parents of a family without a star in their name, as in
;; Seatbelt: ipc-posix-shm covers ipc-posix-shm-read-data and the rest.
(define family-parents '(ipc-posix-shm ipc-posix-sem))

;; ---- reading ----

(define (read-all port)
  (let loop ((acc '()))
    (let ((form (read port)))
      (if (eof-object? form) (reverse acc) (loop (cons form acc))))))

(define (read-file path)
  (call-with-input-file path
    (lambda (port) (set-port-encoding! port "UTF-8") (read-all port))))

;; ---- structure ----

(define params '())

(define (check-filter f)
  (cond ((string? f) #t)
        ((symbol? f) #t) ; unix-socket, same-sandbox
        ((and (pair? f) (eq? (car f) '%regex))
         (catch #t (lambda () (make-regexp (cadr f) regexp/extended) #t)
           (lambda _ (problem "bad regex " (cadr f)))))
        ((and (pair? f) (eq? (car f) 'param))
         (unless (and (= (length f) 2) (string? (cadr f)) (assoc (cadr f) params))
           (problem "undefined or malformed parameter " f)))
        ((and (pair? f) (memq (car f) known-filters))
         (for-each check-filter (cdr f)))
        (else (problem "unknown filter " f))))

(define (check-rule form)
  (cond ((not (and (pair? form) (memq (car form) '(allow deny))))
         (problem "not an allow/deny rule: " form))
        (else
         (let* ((body (cdr form))
                (ops (take-while symbol? body))
                (filters (drop-while symbol? body)))
           (when (null? ops) (problem "rule without an operation: " form))
           (for-each (lambda (op)
                       (unless (memq op known-operations)
                         (problem "unknown operation " op)))
                     ops)
           (for-each check-filter filters)))))

;; ---- deciding ----

(define (param-value name) (cdr (assoc name params)))

(define (value v) (if (and (pair? v) (eq? (car v) 'param)) (param-value (cadr v)) v))

;; An operation in a rule covers a query's operation when equal, or when it is
;; a wildcard (file-write*) over the query's family (file-write-data).
(define (op-covers? rule-op op)
  (let ((r (symbol->string rule-op)) (o (symbol->string op)))
    (or (string=? r o)
        (and (string-suffix? "*" r)
             (string-prefix? (substring r 0 (- (string-length r) 1)) o))
        (and (memq rule-op family-parents)
             (string-prefix? (string-append r "-") o)))))

;; What "localhost" names in (remote ip "localhost:*"), as far as this model
;; knows: the two loopback addresses spelled the usual way. Other spellings
;; (127.0.0.2, 0.0.0.0, ::ffff:127.0.0.1) are not modelled as matching: what
;; Seatbelt does with them is for tests/macos/live.sh to find out.
(define localhost-names '("localhost" "127.0.0.1" "::1" "[::1]"))

(define (split-host-port s)
  (let ((i (string-rindex s #\:)))
    (if i (cons (substring s 0 i) (substring s (+ i 1))) (cons s "*"))))

(define (ip-matches? pattern arg)
  (and (pair? arg) (eq? (car arg) 'inet)
       (let ((want (split-host-port pattern)) (got (split-host-port (cadr arg))))
         (and (or (string=? (car want) "*")
                  (and (string=? (car want) "localhost")
                       (member (car got) localhost-names) #t))
              (or (string=? (cdr want) "*") (string=? (cdr want) (cdr got)))))))

(define (under? path dir)
  (or (string=? path dir)
      (string=? dir "/")
      (string-prefix? (string-append dir "/") path)))

;; Does filter f match the query argument?
(define (filter-matches? f arg)
  (let ((kind (if (pair? f) (car f) f)))
    (case kind
      ((literal) (and (string? arg) (string=? arg (value (cadr f)))))
      ((subpath) (and (string? arg) (under? arg (value (cadr f)))))
      ((regex) (and (string? arg)
                    (regexp-exec (make-regexp (cadr (cadr f)) regexp/extended) arg) #t))
      ((global-name sysctl-name) (and (string? arg) (string=? arg (value (cadr f)))))
      ((global-name-prefix) (and (string? arg) (string-prefix? (value (cadr f)) arg)))
      ((local remote)
       (cond ((eq? (cadr f) 'ip) (ip-matches? (value (caddr f)) arg))
             ((eq? (cadr f) 'unix-socket)
              (and (pair? arg) (eq? (car arg) 'unix)
                   (or (null? (cddr f))
                       (let ((pl (caddr f)))
                         (case (car pl)
                           ((path-literal) (string=? (value (cadr pl)) (cadr arg)))
                           ((path-regex)
                            (and (regexp-exec (make-regexp (cadr (cadr pl)) regexp/extended)
                                              (cadr arg)) #t))
                           (else #f))))))
             (else #f)))
      ((target) (and (eq? (cadr f) 'same-sandbox) (equal? arg '(process same))))
      ;; (socket-domain AF_UNIX) matches the query argument (socket AF_UNIX)
      ((socket-domain) (equal? arg (list 'socket (cadr f))))
      ;; A sandbox extension is a token some process was handed: the model
      ;; assumes no path carries one (a pty from outside, the user's other
      ;; terminals), so the filter never matches. live.sh checks the ptys the
      ;; command makes itself.
      ((extension) #f)
      ((require-all) (every (lambda (g) (filter-matches? g arg)) (cdr f)))
      ((require-any) (any (lambda (g) (filter-matches? g arg)) (cdr f)))
      ((require-not) (not (filter-matches? (cadr f) arg)))
      (else #f))))

(define (decide rules op arg)
  (let loop ((rs rules) (verdict #f) (default 'deny))
    (if (null? rs)
        (or verdict default)
        (let* ((form (car rs))
               (action (car form))
               (ops (take-while symbol? (cdr form)))
               (filters (drop-while symbol? (cdr form))))
          (cond ((equal? ops '(default)) (loop (cdr rs) verdict action))
                ((and (any (lambda (r) (op-covers? r op)) ops)
                      (or (null? filters) (any (lambda (f) (filter-matches? f arg)) filters)))
                 (loop (cdr rs) action default))
                (else (loop (cdr rs) verdict default)))))))

;; ---- main ----

(define (main args)
  (unless (= (length args) 4)
    (display "usage: sbpl_check.scm PROFILE PARAMS QUERIES\n")
    (exit 2))
  (let* ((forms (catch #t (lambda () (read-file (list-ref args 1)))
                  (lambda (key . rest)
                    (problem "the profile does not read as S-expressions: " key " " rest)
                    (exit 1))))
         (queries (read-file (list-ref args 3))))
    (set! params (car (read-file (list-ref args 2))))
    (unless (and (pair? forms) (equal? (car forms) '(version 1)))
      (problem "the profile does not start with (version 1)"))
    (let ((rules (if (pair? forms) (cdr forms) '())))
      (for-each check-rule rules)
      (unless (= 1 (count (lambda (r) (equal? (cdr r) '(default))) rules))
        (problem "not exactly one default rule"))
      (for-each
       (lambda (q)
         (let* ((want (cadr q)) (op (caddr q)) (arg (cadddr q))
                (got (decide rules op arg)))
           (if (eq? got want)
               (format #t "ok   - ~a ~a ~s\n" want op arg)
               (problem "expected " want " for " op " " (format #f "~s" arg) ", got " got))))
       queries))
    (format #t "checked ~a rules, ~a problems\n" (length forms) problems)
    (exit (if (zero? problems) 0 1))))

(main (command-line))
