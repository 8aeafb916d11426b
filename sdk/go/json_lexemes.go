// Strict JSON: lexeme scanners of the parser (literals, member names, strings, numbers).

package lifeloop

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// literals are the JSON literal names with their values.
var literals = [...]struct {
	word  string
	value any
}{
	{"true", true},
	{"false", false},
	{"null", nil},
}

// literal parses true, false or null at the cursor into *v.
func (p *parser) literal(v *any) bool {
	for _, w := range literals {
		if p.src[p.pos] != w.word[0] {
			continue
		}
		if p.pos+len(w.word) <= len(p.src) && string(p.src[p.pos:p.pos+len(w.word)]) == w.word {
			if !p.countOne() {
				return false
			}
			p.pos += len(w.word)
			*v = w.value
			return true
		}
		p.syntax(p.slotPointer(), fmt.Sprintf("invalid literal at byte %d (expected '%s'), %s", p.pos, w.word, p.preview(p.pos)))
		return false
	}
	return false
}

// memberName parses the member name at the cursor (its opening quote). A plain name (no escape)
// that t declares is returned as t's own string, so declared names cost no allocation.
func (p *parser) memberName(t *typeMeta) (string, bool) {
	if t != nil {
		if raw, end := p.plainString(); end > 0 {
			for k := range t.fields {
				if name := t.fields[k].name; string(raw) == name {
					p.pos, p.field = end, k
					return name, true
				}
			}
		}
	}
	p.field = -1
	return p.stringLiteral(true)
}

// enumString parses the string at the cursor (its opening quote) as a value of an enum field: a
// plain string equal to one of values is returned as that string (no allocation).
func (p *parser) enumString(values []string) (string, bool) {
	if raw, end := p.plainString(); end > 0 {
		for _, v := range values {
			if string(raw) == v {
				p.pos = end
				return v, true
			}
		}
	}
	return p.stringLiteral(false)
}

// plainString returns the content of the string at the cursor and the offset after its closing
// quote when it has no escape and no control character; end is 0 otherwise.
func (p *parser) plainString() (raw []byte, end int) {
	for i := p.pos + 1; i < len(p.src); i++ {
		c := p.src[i]
		if c == '"' {
			return p.src[p.pos+1 : i], i + 1
		}
		if c == '\\' || c < 0x20 {
			return nil, 0
		}
	}
	return nil, 0
}

// minusZero is -0 as an interface value, shared by every -0 of every open map.
var minusZero any = math.Copysign(0, -1)

// boxNumber is f as an interface value; -0 needs no allocation.
func boxNumber(f float64) any {
	if f == 0 && math.Signbit(f) {
		return minusZero
	}
	return f
}

// quoteKey renders a member name for messages, cut to 32 code points.
func quoteKey(key string) string {
	if utf8.RuneCountInString(key) > 32 {
		return strconv.QuoteToASCII(string([]rune(key)[:32])) + "..."
	}
	return strconv.QuoteToASCII(key)
}

// hex4 is the value of the 4 hex digits at src[i:i+4], or -1.
func (p *parser) hex4(i int) int {
	if i+4 > len(p.src) {
		return -1
	}
	v := 0
	for _, c := range p.src[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}

// stringLiteral parses the string at the cursor (its opening quote) and returns its decoded value.
// Problems inside a member name point at the enclosing object, inside a value at the value.
func (p *parser) stringLiteral(isKey bool) (string, bool) {
	start := p.pos
	i := start + 1
	for i < len(p.src) {
		c := p.src[i]
		if c == '"' {
			p.pos = i + 1
			return p.substring(start+1, i), true
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	ptr := p.slotPointer()
	if isKey {
		ptr = p.containerPointer()
	}
	var b strings.Builder
	b.Write(p.src[start+1 : i])
	for {
		if i >= len(p.src) {
			p.syntax(ptr, fmt.Sprintf("unterminated string (opened at byte %d): end of input at byte %d, %s", start, i, p.preview(start)))
			return "", false
		}
		c := p.src[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return b.String(), true
		case c < 0x20:
			p.syntax(ptr, fmt.Sprintf("unescaped control character U+%04X in string at byte %d (must be written as an escape), %s", c, i, p.preview(i)))
			return "", false
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(p.src) {
			p.syntax(ptr, fmt.Sprintf("unterminated string (opened at byte %d): end of input at byte %d, %s", start, i+1, p.preview(start)))
			return "", false
		}
		switch e := p.src[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			v := p.hex4(i + 2)
			if v < 0 {
				p.syntax(ptr, fmt.Sprintf("invalid \\u escape (expected 4 hex digits) in string at byte %d, %s", i, p.preview(i)))
				return "", false
			}
			if v >= 0xD800 && v <= 0xDFFF {
				if v >= 0xDC00 {
					p.fail(RuleJSONLoneSurrogate, ptr, fmt.Sprintf("lone low-surrogate escape \\u%s (not preceded by a high-surrogate escape) at byte %d", p.src[i+2:i+6], i))
					return "", false
				}
				w := -1
				if i+7 < len(p.src) && p.src[i+6] == '\\' && p.src[i+7] == 'u' {
					w = p.hex4(i + 8)
				}
				if w < 0xDC00 || w > 0xDFFF {
					p.fail(RuleJSONLoneSurrogate, ptr, fmt.Sprintf("lone high-surrogate escape \\u%s (not followed by a \\uDC00-\\uDFFF escape) at byte %d", p.src[i+2:i+6], i))
					return "", false
				}
				b.WriteRune(utf16.DecodeRune(rune(v), rune(w)))
				i += 12
				continue
			}
			b.WriteRune(rune(v))
			i += 6
			continue
		default:
			r, _ := utf8.DecodeRune(p.src[i+1:])
			p.syntax(ptr, fmt.Sprintf("invalid escape sequence \\%s in string at byte %d, %s", strconv.QuoteRuneToASCII(r), i, p.preview(i)))
			return "", false
		}
		i += 2
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number parses the number at the cursor (a '-' or a digit) into a node that keeps its lexeme. A
// non-integer lexeme is marked, and counted when count is set.
func (p *parser) number(count bool) *node {
	start := p.pos
	f, nonInteger, ok := p.scanNumber()
	if !ok {
		return nil
	}
	if nonInteger && count {
		p.nonInteger++
	}
	n := p.newNode(kindNumber)
	n.number = f
	n.nonInteger = nonInteger
	// A generic parse keeps every lexeme (readers of command output take integers from it). A typed
	// parse keeps it only where writeNode's appendFloat would not write it back as it was: a short
	// plain integer (at most 15 digits: exact as a double) needs no string.
	if !p.typed || nonInteger || p.pos-start > 15 {
		n.str = p.substring(start, p.pos)
	}
	return n
}

// scanNumber scans the number at the cursor (a '-' or a digit) and moves past it. It returns its
// value and whether it is written with a fraction, an exponent or as -0; ok is false once an issue
// is recorded.
func (p *parser) scanNumber() (f float64, nonInteger, ok bool) {
	src := p.src
	start := p.pos
	i := start
	digitAt := func(k int) bool { return k < len(src) && isDigit(src[k]) }
	if src[i] == '-' {
		i++
		if strings.HasPrefix(string(src[i:min(i+8, len(src))]), "Infinity") {
			p.syntax(p.slotPointer(), fmt.Sprintf("-Infinity is not valid JSON at byte %d, %s", start, p.preview(start)))
			return 0, false, false
		}
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
		if digitAt(i) {
			p.syntax(p.slotPointer(), fmt.Sprintf("number with a leading zero at byte %d, %s", start, p.preview(start)))
			return 0, false, false
		}
		if i-start == 2 {
			nonInteger = true // -0
		}
	case digitAt(i):
		for digitAt(i) {
			i++
		}
	default:
		p.syntax(p.slotPointer(), fmt.Sprintf("expected a digit after '-' at byte %d, %s", i, p.preview(start)))
		return 0, false, false
	}
	if i < len(src) && src[i] == '.' {
		i++
		if !digitAt(i) {
			p.syntax(p.slotPointer(), fmt.Sprintf("expected a digit after the decimal point at byte %d, %s", i, p.preview(start)))
			return 0, false, false
		}
		for digitAt(i) {
			i++
		}
		nonInteger = true
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if !digitAt(i) {
			p.syntax(p.slotPointer(), fmt.Sprintf("expected a digit in the exponent at byte %d, %s", i, p.preview(start)))
			return 0, false, false
		}
		for digitAt(i) {
			i++
		}
		nonInteger = true
	}
	f, _ = strconv.ParseFloat(string(src[start:i]), 64)
	if math.IsInf(f, 0) {
		shown := string(src[start:min(i, start+32)])
		if i-start > 32 {
			shown += "..."
		}
		p.fail(RuleJSONNumberRange, p.slotPointer(), fmt.Sprintf("number %s at byte %d overflows an IEEE-754 double (magnitude above 1.7976931348623157e308)", shown, start))
		return 0, false, false
	}
	p.pos = i
	return f, nonInteger, true
}
