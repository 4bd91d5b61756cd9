# tools/completion.bash: bash completion for tracedb (make install puts it in
# PREFIX/share/bash-completion/completions/tracedb; or source it). It holds no list of tracedb's own: the
# tracedb being completed says them, at completion time: its commands (tracedb help), a command's
# options and positional arguments (the usage and option table of tracedb help COMMAND), the values an
# option lists there (--format table|csv|json, --group-by name|shape|stack, --kinds a,b,c), the --sort
# keys (the list an unknown key gets), and the names traces have (import's line in tracedb help). Where a
# file goes, files of the kind the usage names (run.db, trace.json[.gz], report.html), and directories; a
# report's database may be a trace too.

# The tracedb to ask: the one on the command line when it can be run, else tracedb on PATH.
_tracedb_bin() {
    local b=${COMP_WORDS[0]}
    [[ $b == \~/* ]] && b=$HOME/${b#\~/}
    if [[ $b == */* && -x $b ]] || type -P -- "$b" >/dev/null 2>&1; then
        printf '%s\n' "$b"
    else
        printf 'tracedb\n'
    fi
}

# The commands tracedb help lists ("    NAME  what it does").
_tracedb_commands() {
    local line re='^    ([a-z][a-z0-9-]*)  '
    "$1" help 2>/dev/null | while IFS= read -r line; do
        [[ $line =~ $re ]] && printf '%s\n' "${BASH_REMATCH[1]}"
    done
}

# The suffixes trace files have, as import's line in tracedb help gives them ("(.json, .json.gz, ...)").
_tracedb_trace_suffixes() {
    local line re='\.([a-z][a-z0-9.]*[a-z0-9])'
    line=$("$1" help 2>/dev/null | grep -m1 '^    import ')
    line=${line#*(}
    while [[ $line =~ $re ]]; do
        printf '%s\n' "${BASH_REMATCH[1]}"
        line=${line#*"${BASH_REMATCH[0]}"}
    done
}

# Adds to COMPREPLY the directories and the files named *.EXT for each EXT given that start with $cur
# (every file when no EXT is given).
_tracedb_files() {
    local ext
    compopt -o filenames 2>/dev/null
    mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur")
    if (($# == 0)); then
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
        return
    fi
    for ext in "$@"; do
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X "!*.$ext" -- "$cur")
    done
}

# COMPREPLY without repeats (two usage lines may offer the same files).
_tracedb_unique() {
    ((${#COMPREPLY[@]})) && mapfile -t COMPREPLY < <(printf '%s\n' "${COMPREPLY[@]}" | sort -u)
}

# Completes $cur as what a usage token stands for: a|b|c (one of them), a,b,c (a list of them),
# NAME.EXT or NAME.EXT[.gz] (such files), TRACE or DIR (traces, directories), a plain word (itself).
# db: a .db file may be a trace too (a report's database).
_tracedb_token() {
    local token=$1 db=$2 bin=$3 ext head
    local -a suffixes
    token=${token%...}
    if [[ $token == *"|"* && $token != *[A-Z]* ]]; then
        COMPREPLY+=($(compgen -W "${token//|/ }" -- "$cur"))
    elif [[ $token == *,* && $token != *[A-Z]* ]]; then
        head=
        [[ $cur == *,* ]] && head=${cur%,*},
        token=${token//,/ }
        COMPREPLY+=($(compgen -P "$head" -W "${token//.../}" -- "${cur##*,}"))
        compopt -o nospace 2>/dev/null
    elif [[ $token =~ ^[A-Za-z0-9_-]+\.[a-z] ]]; then
        ext=${token#*.}
        if [[ $ext == *"[."*"]" ]]; then # json[.gz]: json and json.gz
            head=${ext#*\[.}
            _tracedb_files "${ext%%\[*}" "${ext%%\[*}.${head%]}"
        elif [[ $ext == db && -n $db ]]; then
            mapfile -t suffixes < <(_tracedb_trace_suffixes "$bin")
            _tracedb_files db "${suffixes[@]}"
        else
            _tracedb_files "$ext"
        fi
    elif [[ $token == *TRACE* ]]; then
        mapfile -t suffixes < <(_tracedb_trace_suffixes "$bin")
        _tracedb_files "${suffixes[@]}"
    elif [[ $token == *DIR* ]]; then
        compopt -o filenames 2>/dev/null
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur")
    elif [[ $token =~ ^[a-z][a-z0-9_-]*$ ]]; then
        COMPREPLY+=($(compgen -W "$token" -- "$cur"))
    fi
}

_tracedb() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} bin cmd help line w opt= value=
    local i npos=0 dashdash=-1 usage= re token keys
    local -A takes=() long=()
    local -a options=() typed=() positions=() words=()
    COMPREPLY=()
    bin=$(_tracedb_bin)
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$(_tracedb_commands "$bin") help" -- "$cur"))
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$(_tracedb_commands "$bin")" -- "$cur"))
        return 0
    fi
    help=$("$bin" help "$cmd" 2>/dev/null) || return 0
    # the usage (up to the option table), and the table: "    -s, --sort VALUE     what it does"
    re='^    (-([A-Za-z]), |    )--([a-z][a-z0-9-]*)( ([^ ]+))?( |$)'
    while IFS= read -r line; do
        [[ -z $line || $line == examples:* ]] && break
        if [[ $line =~ $re ]]; then
            w=--${BASH_REMATCH[3]} i=${BASH_REMATCH[2]:+-${BASH_REMATCH[2]}} token=${BASH_REMATCH[5]}
            options+=("$w")
            long[$w]=$w
            [[ -n $i ]] && options+=("$i") && long[$i]=$w
            # an argument: capitals (N, VALUE, SIZE) or a|b|c; else the help text came close after the name
            if [[ $token =~ ^([A-Z][A-Z-]*|[a-z0-9_]+(\|[a-z0-9_]+)+)$ ]]; then
                takes[$w]=1
                [[ -n $i ]] && takes[$i]=1
                usage+=" $w $token"
            fi
            continue
        fi
        usage+=" $line"
        line=${line#usage: }
        line=${line#"${line%%[! ]*}"}
        if [[ $line == "tracedb $cmd "* ]]; then # a usage line: its positional arguments
            token=
            read -r -a words <<<"${line#"tracedb $cmd "}"
            for w in "${words[@]}"; do
                [[ $w == [\[\(\"-]* ]] && break
                token+=" $w"
            done
            positions+=("$token")
        fi
    done <<<"$help"
    # the words before: positional arguments counted, options kept (the --sort probe passes them on)
    for ((i = 2; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if ((dashdash >= 0)); then
            ((dashdash++))
        elif [[ $w == -- ]]; then
            dashdash=0
        elif [[ $w == -?* ]]; then
            [[ $w == --sort* || $w == -s ]] || typed+=("$w")
            if [[ -n ${takes[$w]} ]] && ((i + 1 < COMP_CWORD)); then
                ((i++))
                [[ ${COMP_WORDS[i]} == = ]] && ((i + 1 < COMP_CWORD)) && ((i++))
                [[ $w == --sort || $w == -s ]] || typed+=("${COMP_WORDS[i]}")
            fi
        else
            ((npos++))
        fi
    done
    # the option whose value this word is (not after --): "--sort KEY", or "--sort=KEY" (split at = by bash,
    # or not)
    if ((dashdash >= 0)); then
        :
    elif [[ $cur == = && -n ${takes[$prev]} ]]; then
        opt=$prev cur=
    elif [[ $prev == = && -n ${takes[${COMP_WORDS[COMP_CWORD - 2]}]} ]]; then
        opt=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == -*=* && -n ${takes[${cur%%=*}]} ]]; then
        opt=${cur%%=*} value=${cur%%=*}= cur=${cur#*=}
    elif [[ -n ${takes[$prev]} ]]; then
        opt=$prev
    fi
    if [[ -n $opt ]]; then
        w=${long[$opt]} keys=
        if [[ $w == --sort ]]; then # the keys an unknown one gets listed: "(one of: a b c)"
            keys=$("$bin" "$cmd" /nonexistent/tracedb-completion.db "${typed[@]}" --sort '?' 2>&1 >/dev/null)
            [[ $keys == *"(one of: "*")"* ]] && keys=${keys##*(one of: } && keys=${keys%%)*} || keys=
            COMPREPLY=($(compgen -W "$keys" -- "$cur"))
        fi
        # what follows the option, long or short (-o run.db), wherever the usage and the table name it
        for i in "${!long[@]}"; do
            [[ ${long[$i]} == "$w" && -z $keys ]] || continue
            re="(^| |\\[)$i ([^ ]+)(.*)"
            line=$usage
            while [[ $line =~ $re ]]; do
                token=${BASH_REMATCH[2]} line=${BASH_REMATCH[3]}
                [[ $token == *"["*"]"* ]] || token=${token%%]*}
                _tracedb_token "$token" "" "$bin"
            done
        done
        _tracedb_unique
        ((${#COMPREPLY[@]})) && [[ -n $value ]] && COMPREPLY=("${COMPREPLY[@]/#/$value}")
        return 0
    fi
    if ((dashdash >= 0)); then # after --: the program to run (record -- CMD), then files
        if ((dashdash == 0)) && [[ $usage == *"-- CMD"* ]]; then
            COMPREPLY=($(compgen -c -- "$cur"))
        else
            _tracedb_files
            _tracedb_unique
        fi
        return 0
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "${options[*]}" -- "$cur"))
        return 0
    fi
    # the argument at this place in each usage line (NAME... repeats)
    for line in "${positions[@]}"; do
        read -r -a w <<<"$line"
        ((${#w[@]})) || continue
        if ((npos < ${#w[@]})); then
            token=${w[npos]}
        elif [[ ${w[-1]} == *... ]]; then
            token=${w[-1]}
        else
            continue
        fi
        _tracedb_token "$token" db "$bin"
    done
    _tracedb_unique
    return 0
}

complete -F _tracedb tracedb tracedb-mpi
