"""layout_result.py - the common ending of the layout checks: print each
breach and a summary line, and fail when there are breaches or when so few
files were read that the source root must be wrong."""


def finish(bad, seen, minimum, summary):
    """Exit status of a check that read `seen` files and found `bad`."""
    for line in bad:
        print(line)
    print(summary)
    if seen < minimum:
        print('too few files found: wrong source root?')
        return 1
    return 1 if bad else 0
