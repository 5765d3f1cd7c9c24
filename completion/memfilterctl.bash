# SPDX-License-Identifier: GPL-2.0
# bash completion for memfilterctl(8)

_memfilterctl()
{
	local cur prev words cword
	_init_completion || return

	local cmds="create add query del info list rm build dump load inspect merge version help"
	local sizing="--type --capacity --fpr --bits-per-key --fingerprint-bits --keyed --seed"

	if [[ $cword -eq 1 ]]; then
		COMPREPLY=($(compgen -W "$cmds --help" -- "$cur"))
		return
	fi

	case $prev in
	-t | --type)
		COMPREPLY=($(compgen -W "bloom cuckoo" -- "$cur"))
		return
		;;
	-f | --fingerprint-bits)
		COMPREPLY=($(compgen -W "8 12 16" -- "$cur"))
		return
		;;
	-c | --capacity | -p | --fpr | -b | --bits-per-key | -s | --seed)
		return
		;;
	-i | --image)
		_filedir img
		return
		;;
	esac

	local cmd=${words[1]} opts=""
	case $cmd in
	create) opts="$sizing" ;;
	add | del) opts="--hex" ;;
	query) opts="--hex --count --image" ;;
	info | list | inspect) opts="--json" ;;
	build) opts="$sizing --hex" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
		return
	fi

	# The first argument of commands on a named filter is its name.
	local args=0 i
	for ((i = 2; i < cword; i++)); do
		[[ ${words[i]} != -* ]] && ((args++))
	done
	case $cmd in
	add | query | del | info | rm | dump)
		if [[ $args -eq 0 && " ${words[*]} " != *" --image "* &&
		      " ${words[*]} " != *" -i "* ]]; then
			COMPREPLY=($(compgen -W "$(memfilterctl list 2>/dev/null)" -- "$cur"))
			return
		fi
		_filedir
		;;
	load | create)
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
