# Sourced by the bench scripts (after they cd to the repository root): sets TIME to GNU time, which reports the
# peak RSS, installing Debian's "time" package when it is missing. $1 names the script in its messages.
need_gnu_time() {
	TIME=/usr/bin/time
	if "$TIME" -f %M true >/dev/null 2>&1; then
		return 0
	fi
	echo "$1: installing GNU time (apt-get install time)"
	if ! { apt-get update -qq && apt-get install -y -qq time; } >/dev/null 2>&1; then
		echo "$1: /usr/bin/time (GNU time) is missing and could not be installed" >&2
		return 1
	fi
}
