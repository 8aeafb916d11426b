// Strict JSON: how the parser reports a problem (the json.* issue, its pointer and its preview).

package lifeloop

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// firstInvalidUTF8 is the offset of the first byte at which data stops being well-formed UTF-8.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return 0
}

// fail records the first issue; it returns nil so callers can `return p.fail(...)`.
func (p *parser) fail(rule, pointer, message string) *node {
	if p.issue == nil {
		p.issue = &Issue{Rule: rule, Pointer: pointer, Message: message}
	}
	return nil
}

func (p *parser) syntax(pointer, message string) *node {
	return p.fail(RuleJSONSyntax, pointer, message)
}

// slotsPointer is the JSON pointer of a path of slots.
func slotsPointer(path []slot) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		if s.array {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(escapeToken(s.key))
		}
	}
	return b.String()
}

// pointerTo is the pointer of the current slots of the outermost depth containers.
func (p *parser) pointerTo(depth int) string {
	return slotsPointer(p.slots[:depth])
}

// containerPointer is the pointer of the innermost open container ("" for the root).
func (p *parser) containerPointer() string {
	if p.depth <= 1 {
		return ""
	}
	return p.pointerTo(p.depth - 1)
}

// slotPointer is the pointer of the value being parsed (the root, or the current element/member).
func (p *parser) slotPointer() string {
	return p.pointerTo(p.depth)
}

// preview is an escaped, quoted excerpt of at most 32 bytes of input from offset at.
func (p *parser) preview(at int) string {
	if at >= len(p.src) {
		return "at end of input"
	}
	end := at
	for end < len(p.src) && end-at < 32 {
		_, size := utf8.DecodeRune(p.src[end:])
		if end+size-at > 32 {
			break
		}
		end += size
	}
	quoted := strconv.QuoteToASCII(string(p.src[at:end]))
	if end < len(p.src) {
		return "near " + quoted[:len(quoted)-1] + `..."`
	}
	return "near " + quoted
}

// isNonJSONWhitespace reports Unicode whitespace that JSON does not allow between tokens.
func isNonJSONWhitespace(r rune) bool {
	switch {
	case r == 0x0B, r == 0x0C, r == 0x85, r == 0xA0, r == 0x1680:
		return true
	case r >= 0x2000 && r <= 0x200A:
		return true
	case r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000, r == 0xFEFF:
		return true
	}
	return false
}

func (p *parser) nonJSONWhitespace(r rune, pointer string) *node {
	return p.syntax(pointer, fmt.Sprintf("non-JSON whitespace U+%04X at byte %d (only space, tab, LF and CR are allowed), %s", r, p.pos, p.preview(p.pos)))
}

// describeChar names the character at the cursor for messages.
func (p *parser) describeChar() string {
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return fmt.Sprintf("%s (U+%04X)", strconv.QuoteRuneToASCII(r), r)
}

// unexpectedValue explains a character (or the end of input) where a value was expected.
func (p *parser) unexpectedValue(afterComma bool) *node {
	if strings.HasPrefix(string(p.src[p.pos:min(p.pos+8, len(p.src))]), "NaN") {
		return p.syntax(p.slotPointer(), fmt.Sprintf("NaN is not valid JSON at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	if strings.HasPrefix(string(p.src[p.pos:min(p.pos+8, len(p.src))]), "Infinity") {
		return p.syntax(p.slotPointer(), fmt.Sprintf("Infinity is not valid JSON at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	c := p.peek()
	ptr := p.slotPointer()
	if c < 0 {
		if p.depth == 0 {
			if p.pos == 0 {
				return p.syntax("", "empty document (no JSON value) at byte 0")
			}
			return p.syntax("", fmt.Sprintf("whitespace-only document (no JSON value) at byte %d, at end of input", p.pos))
		}
		return p.syntax(ptr, fmt.Sprintf("unterminated container: expected a value at byte %d, at end of input", p.pos))
	}
	if afterComma && c == ']' {
		return p.syntax(p.containerPointer(), fmt.Sprintf("trailing comma before ']' at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	switch c {
	case ']', '}', ',', ':':
		return p.syntax(ptr, fmt.Sprintf("expected a value but found '%c' at byte %d, %s", c, p.pos, p.preview(p.pos)))
	case '\'':
		return p.syntax(ptr, fmt.Sprintf("single-quoted strings are not allowed at byte %d, %s", p.pos, p.preview(p.pos)))
	case '/', '#':
		return p.syntax(ptr, fmt.Sprintf("comments are not allowed at byte %d, %s", p.pos, p.preview(p.pos)))
	case '+':
		return p.syntax(ptr, fmt.Sprintf("numbers must not start with '+' at byte %d, %s", p.pos, p.preview(p.pos)))
	case '.':
		return p.syntax(ptr, fmt.Sprintf("numbers must have a digit before '.' at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	if r, _ := utf8.DecodeRune(p.src[p.pos:]); isNonJSONWhitespace(r) {
		return p.nonJSONWhitespace(r, ptr)
	}
	return p.syntax(ptr, fmt.Sprintf("unexpected character %s where a value was expected at byte %d, %s", p.describeChar(), p.pos, p.preview(p.pos)))
}

// unexpectedStructural explains a character (or the end of input) where a structural character was expected.
func (p *parser) unexpectedStructural(expected, pointer string) *node {
	c := p.peek()
	if c < 0 {
		return p.syntax(pointer, fmt.Sprintf("unterminated container: expected %s at byte %d, at end of input", expected, p.pos))
	}
	if c == '/' || c == '#' {
		return p.syntax(pointer, fmt.Sprintf("comments are not allowed at byte %d, %s", p.pos, p.preview(p.pos)))
	}
	if r, _ := utf8.DecodeRune(p.src[p.pos:]); isNonJSONWhitespace(r) {
		return p.nonJSONWhitespace(r, pointer)
	}
	return p.syntax(pointer, fmt.Sprintf("expected %s but found %s at byte %d, %s", expected, p.describeChar(), p.pos, p.preview(p.pos)))
}
