// The wire-version window (spec/wire-window.md): a reader accepts a window of adjacent wire versions
// and judges every document by the schemas and rules of the version it carries, never mixing two
// versions' rules in one document. The versions' metadata and plans are generated (zz_window.go,
// from spec/wire-version.json and the release snapshots spec/releases/<version>/). TypeScript twin:
// runtime/wire/ (the window readers).

package lifeloop

import (
	"fmt"
	"strings"
	"sync"
)

// versionRules is one wire version a reader can judge by: its schema metadata and rule plans.
type versionRules struct {
	version string
	// types names the version's wire object types.
	types []string
	// sameShapes is set when every type's metadata is current's (typeMetaOf): a tree parsed along
	// current's schemas (parseTyped) is then this version's tree too; otherwise the document is
	// parsed again along the version's own (the parse layer's verdict is the same).
	sameShapes bool
	metaOf     func(string) *typeMeta
	planOf     func(string) []ruleStep
	// patterns is the stepPattern of every step of every type's plan, by type name, worked out once.
	patterns func() map[string][]stepPattern
}

// newVersionRules builds the versionRules of one version (zz_window.go calls it for each).
func newVersionRules(version string, types []string, sameShapes bool, metaOf func(string) *typeMeta, planOf func(string) []ruleStep) *versionRules {
	v := &versionRules{version: version, types: types, sameShapes: sameShapes, metaOf: metaOf, planOf: planOf}
	v.patterns = sync.OnceValue(func() map[string][]stepPattern {
		all := make(map[string][]stepPattern, len(types))
		for _, name := range types {
			all[name] = patternsOf(planOf(name))
		}
		return all
	})
	return v
}

// Window is a reader's wire-version window (spec/wire-window.md): the wire versions whose documents
// it reads, newest first, each document judged by the schemas and rules of the version it carries.
// A document whose schema_version is outside the window is refused with the one issue
// OutsideWindowRule at "/schema_version" (its message OutsideWindowMessage, naming the window).
//
// The zero Window is the default window, WireWindow (current and every accepted version);
// NewWindow closes a window to fewer versions (for example to exactly one). A Window never opens
// beyond WireWindow. A Window is immutable and safe for concurrent use.
type Window struct {
	// versions are the versions, newest first; nil is the default window (readableVersions).
	versions []*versionRules
}

// NewWindow returns the window of the given versions, each one of WireWindow (duplicates count
// once; the order given does not matter: a window is always newest first). It returns an error
// for no version at all, or for a version this SDK does not read (not in WireWindow).
func NewWindow(versions ...string) (Window, error) {
	if len(versions) == 0 {
		return Window{}, fmt.Errorf("lifeloop: a wire-version window holds at least one version (this SDK reads %s)", strings.Join(WireWindow, ", "))
	}
	for _, version := range versions {
		if versionByName(version) == nil {
			return Window{}, fmt.Errorf("lifeloop: wire version %q is not one this SDK reads (%s)", version, strings.Join(WireWindow, ", "))
		}
	}
	var chosen []*versionRules
	for _, v := range readableVersions {
		for _, version := range versions {
			if v.version == version {
				chosen = append(chosen, v)
				break
			}
		}
	}
	return Window{versions: chosen}, nil
}

// versionByName is the readable version named version, nil when this SDK reads no such version.
func versionByName(version string) *versionRules {
	for _, v := range readableVersions {
		if v.version == version {
			return v
		}
	}
	return nil
}

// closedWindows holds, for each readable version, the window closed to it (the runners write each
// response with the window closed to its request's version).
var closedWindows = sync.OnceValue(func() map[string]Window {
	all := make(map[string]Window, len(readableVersions))
	for _, v := range readableVersions {
		all[v.version] = Window{versions: []*versionRules{v}}
	}
	return all
})

// windowOf is the window closed to version; for a version this SDK does not read, the default
// window (which refuses a document of that version all the same).
func windowOf(version string) Window {
	return closedWindows()[version]
}

// list is the window's versions, newest first.
func (w Window) list() []*versionRules {
	if w.versions == nil {
		return readableVersions
	}
	return w.versions
}

// Versions returns the window's versions, newest first.
func (w Window) Versions() []string {
	list := w.list()
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = v.version
	}
	return out
}

// Contains reports whether the window holds version.
func (w Window) Contains(version string) bool {
	for _, v := range w.list() {
		if v.version == version {
			return true
		}
	}
	return false
}

// String returns the window as OutsideWindowMessage's {window} names it: each version in
// backticks, newest first, joined by ", ".
func (w Window) String() string {
	var b strings.Builder
	for i, v := range w.list() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + v.version + "`")
	}
	return b.String()
}

// verdict is the version chosen for one document (spec/wire-window.md "How a document is judged",
// step 2) and how it is judged.
type verdict struct {
	// by is the version whose schemas (and, unless outside, rules) judge the document.
	by *versionRules
	// carried is the document's own version: its root schema_version when that is a string of the
	// window, "" otherwise.
	carried string
	// outside is set when the root's schema_version is a string outside the window; found is it.
	outside bool
	found   string
}

// choose selects the version that judges a document whose root is root (a parsed tree or one built
// from a Go value): the root's schema_version when it is a string in w, else w's newest version.
func (w Window) choose(root *node) verdict {
	list := w.list()
	if root != nil && root.kind == kindObject {
		if value, ok := stringMember(root, "schema_version"); ok {
			for _, v := range list {
				if v.version == value {
					return verdict{by: v, carried: value}
				}
			}
			return verdict{by: list[0], outside: true, found: value}
		}
	}
	// A missing or non-string schema_version is the schema layer's to report (a type without one is
	// simply judged by the newest version).
	return verdict{by: list[0]}
}

// judge runs the schema layer, the integer-lexeme check and the rules of the chosen version on a
// tree of typeName (steps 3 and 4); for a document outside the window, the rules give way to the
// one outside-window issue once the schema layer and the integer lexemes passed. It returns an
// error (not a *ValidationError) when the chosen version has no type typeName.
func (c verdict) judge(w Window, typeName string, root *node, nonInteger int) ([]Issue, error) {
	meta := c.by.metaOf(typeName)
	if meta == nil {
		return nil, fmt.Errorf("lifeloop: wire version %s has no wire object type %q", c.by.version, typeName)
	}
	path := getPath()
	issue := checkObject(c.by, meta, root, path)
	putPath(path)
	if issue != nil {
		return []Issue{*issue}, nil
	}
	if nonInteger > 0 {
		if issue := integerLexemeIssue(c.by, meta, root, ""); issue != nil {
			return []Issue{*issue}, nil
		}
	}
	if c.outside {
		return []Issue{outsideWindowIssue(c.found, w)}, nil
	}
	return evaluateRules(c.by, typeName, root), nil
}

// outsideWindowIssue is the issue of a document whose schema_version value is outside w.
func outsideWindowIssue(value string, w Window) Issue {
	return Issue{
		Rule:    OutsideWindowRule,
		Pointer: "/schema_version",
		Message: formatMessage(OutsideWindowMessage, map[string]string{"value": value, "window": w.String()}),
	}
}
