/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package imagebuild

import (
	"errors"
	"fmt"
	"strings"
)

// token is one word of an instruction, or a shell operator.
type token struct {
	text string
	op   bool
}

// words splits s, the arguments of an instruction other than RUN, into words
// with quotes removed and variables substituted.
func words(s string, vars map[string]string) ([]string, error) {
	toks, err := lex(s, vars, false)
	if err != nil {
		return nil, err
	}
	w := make([]string, 0, len(toks))
	for _, t := range toks {
		w = append(w, t.text)
	}
	return w, nil
}

// lex splits s into words the way a POSIX shell does for a simple command:
// blanks separate words, '...' is literal, "..." and bare text expand $VAR,
// ${VAR} and ${VAR:-word}, and a backslash escapes the next character. With
// shell set (a RUN line), ; & | < > ( ) and ` are operator tokens, # starts
// a comment, and an unquoted variable whose value has blanks is an error
// because the shell would split it.
func lex(s string, vars map[string]string, shell bool) ([]token, error) {
	var toks []token
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			toks = append(toks, token{text: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
			i++
		case shell && c == '#' && !inWord:
			return toks, nil
		case shell && strings.IndexByte(";&|<>()`", c) >= 0:
			flush()
			op := s[i : i+1]
			if i+1 < len(s) && (c == '&' || c == '|') && s[i+1] == c {
				op = s[i : i+2]
			}
			toks = append(toks, token{text: op, op: true})
			i += len(op)
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("a backslash at the end")
			}
			cur.WriteByte(s[i+1])
			inWord = true
			i += 2
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 2
		case c == '"':
			next, err := doubleQuoted(s, i+1, vars, &cur)
			if err != nil {
				return nil, err
			}
			inWord = true
			i = next
		case c == '$':
			value, next, err := variable(s, i, vars, shell)
			if err != nil {
				return nil, err
			}
			if shell && strings.ContainsAny(value, " \t\n") {
				return nil, fmt.Errorf("unquoted %s expands to %q, which the shell would split; quote it", s[i:next], value)
			}
			cur.WriteString(value)
			inWord = true
			i = next
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	flush()
	return toks, nil
}

// doubleQuoted writes the "..." text that starts at s[i] (after the opening
// quote) to w and returns the index after the closing quote.
func doubleQuoted(s string, i int, vars map[string]string, w *strings.Builder) (int, error) {
	for i < len(s) {
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("$\"\\`", s[i+1]) >= 0:
			w.WriteByte(s[i+1])
			i += 2
		case c == '$':
			value, next, err := variable(s, i, vars, true)
			if err != nil {
				return 0, err
			}
			w.WriteString(value)
			i = next
		default:
			w.WriteByte(c)
			i++
		}
	}
	return 0, fmt.Errorf("unterminated \" in %q", s)
}

// variable expands the $ at s[i] and returns its value and the index after it.
func variable(s string, i int, vars map[string]string, shell bool) (string, int, error) {
	if i+1 == len(s) {
		return "$", i + 1, nil
	}
	if s[i+1] == '{' {
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", 0, fmt.Errorf("unterminated ${ in %q", s)
		}
		inner := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(inner, ":-")
		if !isName(name) {
			return "", 0, fmt.Errorf("${%s} is not supported; only ${NAME} and ${NAME:-word}", inner)
		}
		value := vars[name]
		if value == "" && hasDef {
			value = def
		}
		return value, i + end + 1, nil
	}
	if shell && s[i+1] == '(' {
		return "", 0, errors.New("command substitution $(...) is not supported")
	}
	j := i + 1
	for j < len(s) && (s[j] == '_' || isAlpha(s[j]) || j > i+1 && s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if j == i+1 {
		return "$", i + 1, nil
	}
	return vars[s[i+1:j]], j, nil
}

// expand substitutes variables in s, a JSON-form argument.
func expand(s string, vars map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		value, next, err := variable(s, i, vars, false)
		if err != nil {
			return "", err
		}
		b.WriteString(value)
		i = next
	}
	return b.String(), nil
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] == '_' || isAlpha(s[i]) || i > 0 && s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
