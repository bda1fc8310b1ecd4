package measure

import (
	"cmp"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
)

// redacted replaces a secret in failure messages.
const redacted = "[REDACTED]"

// minSecret is the shortest secret redacted: replacing every "ab" in a
// message would garble it and hide nothing.
const minSecret = 4

// redactor returns a function that removes from a message every secret an
// endpoint may echo back: the API key, and the password of a base URL's
// user:pass@ (decoded and as written) with its Basic-auth form, which
// net/http sends when there is no key. A message clipped in the middle of a
// secret ("sk-abc…") loses the partial secret too.
func redactor(apiKey, baseURL string) func(string) string {
	secrets := []string{apiKey}
	if u, err := url.Parse(baseURL); err == nil && u.User != nil {
		if pass, ok := u.User.Password(); ok {
			userinfo := u.User.Username() + ":" + pass
			secrets = append(secrets, pass, userinfo, base64.StdEncoding.EncodeToString([]byte(userinfo)))
			if raw := u.User.String(); raw != userinfo {
				_, rawPass, _ := strings.Cut(raw, ":")
				secrets = append(secrets, rawPass, raw)
			}
		}
	}
	secrets = slices.DeleteFunc(secrets, func(s string) bool { return len(s) < minSecret })
	// Longest first, so that a secret containing another goes whole.
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return func(msg string) string {
		for _, s := range secrets {
			msg = strings.ReplaceAll(msg, s, redacted)
			msg = redactClipped(msg, s)
		}
		return msg
	}
}

// redactClipped replaces a prefix of secret that ends where clip cut the
// message, right before "…".
func redactClipped(msg, secret string) string {
	const ellipsis = "…"
	var b strings.Builder
	for {
		i := strings.Index(msg, ellipsis)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		head := msg[:i]
		for n := min(len(secret)-1, len(head)); n >= minSecret; n-- {
			if strings.HasSuffix(head, secret[:n]) {
				head = head[:len(head)-n] + redacted
				break
			}
		}
		b.WriteString(head)
		b.WriteString(ellipsis)
		msg = msg[i+len(ellipsis):]
	}
}
