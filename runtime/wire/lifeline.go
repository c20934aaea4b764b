package wire

import "bytes"

// OrderlyEnd is what a launcher writes on a member's lifeline just before
// it closes it to end the formation itself (the entry member ended, a
// launcher signal, a launch that failed): the EOF that follows is then an
// orderly end, which a member winds down from without LifelineClosedNotice.
// A lifeline that reaches EOF without it was closed by the kernel: the
// launcher died. Only EOF ends the formation (LIFE-1).
const OrderlyEnd = "end\n"

// OrderlyWindow is how many leading lifeline bytes a reader looks at for
// OrderlyEnd; the launcher writes nothing else, so anything more is stray.
const OrderlyWindow = 64

// Orderly reports whether head, the lifeline's first OrderlyWindow bytes
// before its EOF, carried OrderlyEnd.
func Orderly(head []byte) bool { return bytes.Contains(head, []byte(OrderlyEnd)) }
