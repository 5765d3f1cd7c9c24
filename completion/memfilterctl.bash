# SPDX-License-Identifier: GPL-2.0
# bash completion for memfilterctl(8)

_memfilterctl()
{
	local cur prev words cword
	_init_completion || return

	local cmds="create add query seen del count clear rotate info list rm swap build dump load inspect merge nf version help"
	local globals="--json --pretty --version --help"
	local sizing="--type --capacity --fpr --bits-per-key --fingerprint-bits --keyed --seed --hash --prefixes --prefix-lengths --layout"
	local grow="--grow --grow-factor --grow-ratio --grow-max"
	local window="--window --generations --rotate-by-count"

	# The command is the first word that is not a global option.
	local i c=0
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} != -* ]]; then
			c=$i
			break
		fi
	done
	if [[ $c -eq 0 ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$globals" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
		fi
		return
	fi

	local cmd=${words[c]} opts=""
	# help COMMAND
	if [[ $cmd == help ]]; then
		[[ $cword -eq $((c + 1)) ]] &&
			COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
		return
	fi
	# nf SUBCOMMAND [ARGS]: the subcommand is the first word after nf.
	local sub=""
	if [[ $cmd == nf ]]; then
		if [[ $cword -eq $((c + 1)) ]]; then
			COMPREPLY=($(compgen -W "attach detach list show stats help" -- "$cur"))
			return
		fi
		sub=${words[c + 1]}
	fi
	# A letter means one option in every command (memfilterctl(8)):
	# the letters of options that take a value, by their long names.
	case $prev in
	-t) prev=--type ;;
	-c) prev=--capacity ;;
	-e) prev=--fpr ;;
	-b) prev=--bits-per-key ;;
	-f) prev=--fingerprint-bits ;;
	-s) prev=--seed ;;
	-w) prev=--window ;;
	-g) prev=--generations ;;
	-k) prev=--key ;;
	-i) prev=--image ;;
	-o) prev=--output ;;
	-H) prev=--hook ;;
	-a) prev=--action ;;
	-F) prev=--family ;;
	-P) prev=--priority ;;
	esac
	case $prev in
	--type)
		COMPREPLY=($(compgen -W "bloom cuckoo grow" -- "$cur"))
		return
		;;
	--key)
		# nf attach: what the key is made of; elsewhere the key itself.
		[[ $cmd == nf ]] &&
			COMPREPLY=($(compgen -W "saddr daddr 5-tuple l4-payload" -- "$cur"))
		return
		;;
	--hook)
		COMPREPLY=($(compgen -W "prerouting input forward output postrouting" -- "$cur"))
		return
		;;
	--action)
		COMPREPLY=($(compgen -W "drop-hit drop-miss count dedup" -- "$cur"))
		return
		;;
	--family)
		COMPREPLY=($(compgen -W "ipv4 ipv6 both" -- "$cur"))
		return
		;;
	--fingerprint-bits)
		COMPREPLY=($(compgen -W "8 12 16" -- "$cur"))
		return
		;;
	--layout)
		COMPREPLY=($(compgen -W "split32 line64" -- "$cur"))
		return
		;;
	--hash)
		COMPREPLY=($(compgen -W "xxh3 xxh64 siphash24" -- "$cur"))
		return
		;;
	--capacity | --fpr | --bits-per-key | --seed | --window | --generations | \
	--priority | --grow-factor | --grow-ratio | --grow-max | --prefix-lengths)
		return
		;;
	--image | --output)
		_filedir img
		return
		;;
	esac

	case $cmd in
	create) opts="$sizing $window $grow --replace" ;;
	load) opts="--replace" ;;
	seen) opts="--key --hex --count --invert --image --output" ;;
	nf)
		case $sub in
		attach) opts="--hook --key --action --family --priority" ;;
		list | show | stats) opts="--json --pretty" ;;
		esac
		;;
	add) opts="--key --hex --unique --image --output --prefixes" ;;
	del) opts="--key --hex" ;;
	count) opts="--key --hex --image" ;;
	query) opts="--key --hex --count --invert --image --prefixes" ;;
	info | list | inspect) opts="--json --pretty" ;;
	build) opts="$sizing $window $grow --hex --strict --output" ;;
	rotate) opts="--image --output" ;;
	dump) opts="--output" ;;
	merge) opts="--strict --output" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
		return
	fi

	# The first argument of commands on a named filter is its name.
	local args=0
	for ((i = c + 1; i < cword; i++)); do
		[[ ${words[i]} != -* ]] && ((args++))
	done
	if [[ $cmd/$sub == nf/attach && $args -eq 1 ]]; then
		COMPREPLY=($(compgen -W "$(memfilterctl list 2>/dev/null)" -- "$cur"))
		return
	fi
	case $cmd in
	swap)
		[[ $args -lt 2 ]] &&
			COMPREPLY=($(compgen -W "$(memfilterctl list 2>/dev/null)" -- "$cur"))
		return
		;;
	add | query | seen | del | count | clear | rotate | info | rm | dump)
		if [[ $args -eq 0 && " ${words[*]} " != *" --image "* &&
		      " ${words[*]} " != *" -i "* ]]; then
			COMPREPLY=($(compgen -W "$(memfilterctl list 2>/dev/null)" -- "$cur"))
			return
		fi
		_filedir
		;;
	inspect | merge)
		_filedir img
		;;
	build)
		_filedir
		;;
	esac
} &&
	complete -F _memfilterctl memfilterctl
