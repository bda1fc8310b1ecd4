package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Record is the server-side truth of one chat request, kept while recording.
type Record struct {
	Seq    int
	Model  string
	Status int    // HTTP status sent; 0 when none was
	Fault  string // the fault applied to this request, "" for none
	Start  time.Time
	// Level is the level the request was planned at (Profile.Level: 1
	// without level jumps).
	Level float64
	// PromptTokens and Cached are the prompt's tokens and those of them
	// served from the prompt cache (reported in the usage).
	PromptTokens, Cached int
	// Turns counts the request's assistant turns: step N of an agent chain
	// holds N−1 (chain.go).
	Turns int
	// Plan is the request's schedule, offsets from Start.
	Plan Plan
	// Header is when the headers (and the role chunk) were flushed; zero when
	// they never were.
	Header time.Time
	// Tokens holds, for each token chunk (reasoning or content), when its
	// Flush returned.
	Tokens []time.Time
}

// Server is the simulator as an http.Handler. It is safe for concurrent use.
type Server struct {
	p   Profile
	err error // from p.Validate: every chat request then fails with 500

	seq       atomic.Int64
	recording atomic.Bool
	done      chan struct{}
	closeOnce sync.Once

	mu      sync.Mutex
	records []Record
	models  map[string]struct{}

	// caches holds the prompt prefixes an Anthropic request marked with a
	// cache breakpoint: the first request with a prefix writes the cache,
	// later ones read it (bounded by maxCaches).
	caches map[string]struct{}
	// blocks holds the prefix hashes of the prompt cache (cache.go).
	blocks map[uint64]struct{}

	// slot, when the profile is Serial or has a Capacity, holds a token
	// for each chat request being served.
	slot chan struct{}
	// serving counts the chat requests being served (BatchITL).
	serving atomic.Int64
	// firstOnce sets first, when the server's first request arrived: the
	// stall's window (Profile.Stall) counts from it.
	firstOnce sync.Once
	first     time.Time
	// loaded is the model served last (Profile.Swap), under mu.
	loaded string

	// Pre-built JSON pieces of the chunks.
	contentHead, reasonHead, finalDelta, fingerprint string
	words, thoughts                                  []string
	big                                              string
	// argFirst, argLast and argOnly are the words as fragments of a tool
	// call's arguments {"input":"…"}: the first, the last, the only one.
	argFirst, argLast, argOnly []string
}

// maxCaches bounds the prompt prefixes the simulator remembers as cached.
const maxCaches = 1024

// maxModels bounds the set of model names that /v1/models reports.
const maxModels = 1024

// New returns a simulator answering with profile p. An invalid profile (see
// Profile.Validate) makes every chat request fail with HTTP 500 naming the
// problem.
func New(p Profile) *Server {
	s := &Server{
		p:           p,
		err:         p.Validate(),
		done:        make(chan struct{}),
		models:      map[string]struct{}{"sim": {}},
		caches:      map[string]struct{}{},
		blocks:      map[uint64]struct{}{},
		contentHead: `"content":`,
		reasonHead:  `"` + p.reasoningField() + `":`,
		fingerprint: "fp_sim",
	}
	if p.Style == StyleOllama {
		s.contentHead = `"role":"assistant","content":`
		s.reasonHead = `"role":"assistant","content":"",` + s.reasonHead
		s.finalDelta = `"role":"assistant","content":""`
		s.fingerprint = "fp_ollama"
	}
	for _, w := range strings.Fields("the quick brown fox jumps over a lazy dog and runs far into green hills at dawn") {
		s.words = append(s.words, `"`+w+` "`)
		s.argFirst = append(s.argFirst, `"{\"input\":\"`+w+` "`)
		s.argLast = append(s.argLast, `"`+w+`\"}"`)
		s.argOnly = append(s.argOnly, `"{\"input\":\"`+w+`\"}"`)
	}
	for _, w := range strings.Fields("hmm let me think about this step by step first") {
		s.thoughts = append(s.thoughts, `"`+w+` "`)
	}
	if p.Fault == FaultBig {
		s.big = `"` + strings.Repeat("big ", 200*1024/4) + `"`
	}
	switch {
	case p.Serial:
		s.slot = make(chan struct{}, 1)
	case p.Capacity > 0:
		s.slot = make(chan struct{}, p.Capacity)
	}
	return s
}

// Profile returns the server's profile.
func (s *Server) Profile() Profile { return s.p }

// Close ends every request in flight, stalled streams included, and makes
// later chat requests fail with 503. It does not close any listener.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
}

// Record starts (on: after dropping earlier records) or stops recording. A
// request is kept when recording is on at its start and at its end. Memory
// grows with recorded requests and tokens only while recording.
func (s *Server) Record(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.records = nil
	}
	s.recording.Store(on)
}

// Records returns the finished requests recorded so far, by Seq.
func (s *Server) Records() []Record {
	s.mu.Lock()
	out := slices.Clone(s.records)
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Record) int { return a.Seq - b.Seq })
	return out
}

// idPrefixes are the prefixes of the response ids of each API: request n's
// id is the prefix followed by "sim-<n>".
var idPrefixes = []string{"chatcmpl-", "resp-", "msg-", "gemini-", "app-"}

// SeqFromID returns the request number in a response id the simulator
// sent: "chatcmpl-sim-<n>" (chat), "resp-sim-<n>" (responses),
// "msg-sim-<n>" (anthropic), "gemini-sim-<n>" (gemini) or "app-sim-<n>"
// (the app stream's SSE id).
func SeqFromID(id string) (int, bool) {
	for _, p := range idPrefixes {
		if rest, ok := strings.CutPrefix(id, p+"sim-"); ok {
			n, err := strconv.Atoi(rest)
			if err != nil || n <= 0 || strconv.Itoa(n) != rest {
				return 0, false
			}
			return n, true
		}
	}
	return 0, false
}

// Paths of the APIs the simulator speaks (see Running.URLFor).
const (
	pathChat      = "/v1/chat/completions"
	pathResponses = "/v1/responses"
	pathMessages  = "/v1/messages"
	pathApp       = "/app/chat"
	pathOllama    = "/api/chat"
)

// ServeHTTP serves POST /v1/chat/completions (OpenAI Chat Completions),
// POST /v1/responses (the OpenAI Responses API), POST /v1/messages (the
// Anthropic Messages API), POST /v1beta/models/MODEL:streamGenerateContent
// (Gemini; also below /v1), POST /app/chat (an app's own event stream:
// status, delta and done events), POST /api/chat (Ollama's native NDJSON
// stream) and GET /v1/models.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var wr wire
	switch path := r.URL.Path; {
	case path == pathChat:
		wr = chatWire{}
	case path == pathResponses:
		wr = responsesWire{}
	case path == pathMessages:
		wr = anthropicWire{}
	case path == pathApp:
		wr = appWire{}
	case path == pathOllama:
		wr = ollamaWire{}
	case geminiModel(path) != "":
		wr = geminiWire{model: geminiModel(path)}
	case path == "/v1/models":
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use GET")
			return
		}
		s.listModels(w)
		return
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "unknown URL "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		wr.writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST")
		return
	}
	s.handle(w, r, wr)
}

func (s *Server) listModels(w http.ResponseWriter) {
	s.mu.Lock()
	names := slices.Sorted(maps.Keys(s.models))
	s.mu.Unlock()
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, n := range names {
		list.Data = append(list.Data, model{n, "model", 1700000000, "latgate-sim"})
	}
	writeJSON(w, http.StatusOK, list)
}

// chatRequest holds the request fields the simulator reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream              bool `json:"stream"`
	MaxTokens           *int `json:"max_tokens"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
}

// simRequest is what the simulator reads of a request, whatever its API.
type simRequest struct {
	model     string
	stream    bool
	maxTokens *int
	// usage: the request asks for usage in the stream (chat's
	// stream_options.include_usage; the other APIs always report it).
	usage bool
	// promptTokens is the prompt's size in tokens (4 bytes each); prompt
	// its text, in order, for the prefix cache (cache.go).
	promptTokens int
	prompt       string
	// cachePrefix is the prompt text up to its last cache breakpoint
	// (Anthropic cache_control), "" for none; cacheTokens its size.
	cachePrefix string
	cacheTokens int
	// tool is the tool the answer calls ("" for a text answer): the first
	// declared, unless tool_choice says none or names another.
	tool string
	// turns counts the assistant turns of the conversation: an agent
	// chain's step N holds N−1 (chain.go).
	turns int
}

// answer is what one request will get.
type answer struct {
	seq, n, reasoning int
	model, finish     string
	fault             string
	plan              Plan
	usage             bool
	promptTokens      int
	// cached and cacheCreation are the prompt tokens read from and written
	// to the prompt cache.
	cached, cacheCreation int
	tool                  string
	// modelJSON is the model as a JSON string, for the events that repeat it.
	modelJSON string
}

// handle serves one request of wire wr's API.
func (s *Server) handle(w http.ResponseWriter, r *http.Request, wr wire) {
	start := time.Now()
	s.firstOnce.Do(func() { s.first = start })
	seq := int(s.seq.Add(1))
	st := &stream{s: s, w: w, wr: wr, rc: http.NewResponseController(w), ctx: r.Context(), start: start}
	if s.recording.Load() {
		st.rec = &Record{Seq: seq, Start: start}
		defer s.save(st.rec) // also on the panic of FaultCut
	}
	defer st.stopTimer()
	if s.err != nil {
		st.fail(http.StatusInternalServerError, "server_error", "invalid_profile", s.err.Error())
		return
	}
	select {
	case <-s.done:
		st.fail(http.StatusServiceUnavailable, "server_error", "closed", "simulator closed")
		return
	default:
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 16<<20))
	var req simRequest
	if err == nil {
		req, err = wr.decode(body)
	}
	if err != nil {
		st.fail(http.StatusBadRequest, "invalid_request_error", "invalid_json", "invalid request body: "+err.Error())
		return
	}
	if req.model == "" {
		st.fail(http.StatusBadRequest, "invalid_request_error", "missing_model", "you must provide a model parameter")
		return
	}
	s.seeModel(req.model)
	if st.rec != nil {
		st.rec.Model = req.model
	}
	if k := s.p.RequireKey; k != "" && !wr.authorized(r, k) {
		st.fail(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return
	}

	if s.slot != nil { // Serial or Capacity: wait for a request being served to end
		select {
		case s.slot <- struct{}{}:
		case <-r.Context().Done():
			return
		case <-s.done:
			st.fail(http.StatusServiceUnavailable, "server_error", "closed", "simulator closed")
			return
		}
		defer func() { <-s.slot }()
		st.start = time.Now() // the schedule starts when the request is served
		if st.rec != nil {
			st.rec.Start = st.start
		}
	}

	others := s.serving.Add(1) - 1
	defer s.serving.Add(-1)

	a := answer{seq: seq, model: req.model, modelJSON: quote(req.model), finish: wr.finish(""), reasoning: s.p.Reasoning, usage: s.p.Usage, tool: req.tool}
	if s.p.faulty(seq) {
		a.fault = s.p.Fault
	}
	content := s.p.Tokens
	if a.fault == FaultZero {
		content = 0
	}
	a.n = a.reasoning + content
	if a.tool != "" && content > 0 {
		a.finish = wr.finish("tool")
	}
	if req.maxTokens != nil && *req.maxTokens > 0 && a.n > *req.maxTokens {
		a.n, a.finish = *req.maxTokens, wr.finish("length")
	}
	a.reasoning = min(a.reasoning, a.n)
	a.promptTokens = req.promptTokens
	s.cache(&a, req) // cache.go
	a.plan = s.p.PlanAt(seq, a.n, st.start)
	s.p.prefill(&a.plan, a.promptTokens-a.cached)
	s.p.stepDelay(&a.plan, req.turns) // chain.go
	stretch(&a.plan, 1+s.p.BatchITL*float64(others))
	if s.swapped(a.model) {
		delay(&a.plan, s.p.Swap)
	}
	if st.rec != nil {
		st.rec.Fault, st.rec.Plan, st.rec.Level = a.fault, a.plan, s.p.Level.At(st.start)
		st.rec.PromptTokens, st.rec.Cached, st.rec.Turns = a.promptTokens, a.cached, req.turns
	}

	switch a.fault {
	case Fault429, Fault500, Fault401, Fault403, FaultEchoKey, FaultOverloaded:
		if st.waitUntil(st.start.Add(a.plan.Header)) != nil {
			return
		}
		st.failFault(a.fault, wr.presented(r))
		return
	}
	if req.stream {
		a.usage = a.usage && req.usage
		st.stream(&a)
		return
	}
	if _, ok := wr.(chatWire); !ok {
		st.fail(http.StatusBadRequest, "invalid_request_error", "stream_required", "the simulator streams this API only; set stream: true")
		return
	}
	st.whole(&a)
}

// cacheHit reports whether prefix was cached by an earlier request, and
// caches it.
func (s *Server) cacheHit(prefix string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.caches[prefix]; ok {
		return true
	}
	if len(s.caches) < maxCaches {
		s.caches[prefix] = struct{}{}
	}
	return false
}

func (s *Server) seeModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.models) < maxModels {
		s.models[name] = struct{}{}
	}
}

func (s *Server) save(rec *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recording.Load() {
		s.records = append(s.records, *rec)
	}
}

// stream is the state of one response.
type stream struct {
	s     *Server
	w     http.ResponseWriter
	wr    wire
	rc    *http.ResponseController
	ctx   context.Context
	start time.Time
	rec   *Record

	timer     *time.Timer
	last      time.Time     // last write, for keep-alives
	keepAlive time.Duration // 0 until the headers are out
	split     bool
	prefix    []byte // chat: `data: {"id":…,"choices":[`
	buf       []byte // reused for every frame
	// seqNo numbers the events of a Responses stream (sequence_number).
	seqNo int
	// hold (Profile.Buffer) keeps the events emitted in held, and the
	// number of tokens among them in heldTokens, until release.
	hold       bool
	held       []byte
	heldTokens int
}

const (
	keepAliveFrame   = ": keep-alive\n\n"
	doneFrame        = "data: [DONE]\n\n"
	malformedFrame   = "data: {not json\n\n"
	errorFrame       = `data: {"error":{"message":"simulated mid-stream failure","type":"server_error","param":null,"code":null}}` + "\n\n"
	errorStringFrame = `data: {"error":"simulated mid-stream failure"}` + "\n\n"
)

// piece is what one token event carries.
type piece struct {
	kind int    // pieceReasoning, pieceContent, pieceToolStart or pieceToolArg
	k    int    // the token's index in the answer
	text string // a pre-quoted JSON string (the tool's name for pieceToolStart)
	// first marks the first token of a block or item (reasoning, answer,
	// tool call), which opens with it.
	first bool
}

// Kinds of piece.
const (
	pieceReasoning = iota
	pieceContent
	pieceToolStart
	pieceToolArg
)

// piece returns token k of a's answer.
func (st *stream) piece(a *answer, k, bigAt int) piece {
	s := st.s
	switch {
	case k < a.reasoning:
		return piece{kind: pieceReasoning, k: k, text: s.thoughts[k%len(s.thoughts)], first: k == 0}
	case a.tool != "" && k == a.reasoning:
		return piece{kind: pieceToolStart, k: k, text: a.tool, first: true}
	case a.tool != "":
		w, last, args := (k-a.reasoning-1)%len(s.words), k == a.n-1, k-a.reasoning-1
		switch {
		case args == 0 && last:
			return piece{kind: pieceToolArg, k: k, text: s.argOnly[w]}
		case args == 0:
			return piece{kind: pieceToolArg, k: k, text: s.argFirst[w]}
		case last:
			return piece{kind: pieceToolArg, k: k, text: s.argLast[w]}
		}
		return piece{kind: pieceToolArg, k: k, text: s.words[w]}
	case k == bigAt:
		return piece{kind: pieceContent, k: k, text: s.big, first: k == a.reasoning}
	}
	return piece{kind: pieceContent, k: k, text: s.words[(k-a.reasoning)%len(s.words)], first: k == a.reasoning}
}

// stream sends a's answer as server-sent events in the wire's shapes: its
// opening events with the headers (a role chunk, response.created,
// message_start, a status), one event per token (with the control events
// that open or close a block riding along), its closing events.
func (st *stream) stream(a *answer) {
	if err := st.waitUntil(st.start.Add(a.plan.Header)); err != nil {
		return
	}
	st.split = a.fault == FaultSplit
	h := st.w.Header()
	ct := "text/event-stream; charset=utf-8"
	if t, ok := st.wr.(interface{ contentType() string }); ok {
		ct = t.contentType()
	}
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", "no-cache")
	st.w.WriteHeader(http.StatusOK)
	if st.rec != nil {
		st.rec.Status = http.StatusOK
	}
	if err := st.wr.open(st, a); err != nil {
		return
	}
	if st.rec != nil {
		st.rec.Header = st.last
	}
	st.keepAlive = st.s.p.KeepAlive
	if st.s.p.Buffer {
		st.hold = true
		defer st.release()
	}

	midFault := a.fault == FaultCut || a.fault == FaultNoDone || a.fault == FaultStall ||
		a.fault == FaultMalformed || a.fault == FaultErrorFrame || a.fault == FaultErrorString
	faultAt := min(st.s.p.FaultAfter, a.n)
	bigAt := -1
	if a.fault == FaultBig && a.n > a.reasoning {
		bigAt = max(a.reasoning, min(st.s.p.FaultAfter, a.n-1))
	}
	for k := 0; k <= a.n; k++ {
		at := a.plan.Finish
		if k < a.n {
			at = a.plan.Tokens[k]
		}
		if err := st.waitUntil(st.start.Add(at)); err != nil {
			return
		}
		if midFault && k == faultAt {
			var err error
			switch a.fault {
			case FaultCut:
				st.hold, st.held = false, nil // what a proxy held dies with the connection
				panic(http.ErrAbortHandler)   // net/http drops the connection, logging nothing
			case FaultNoDone:
				return
			case FaultStall:
				_ = st.waitUntil(time.Time{})
				return
			case FaultMalformed:
				err = st.emit(st.wr.malformed(), false)
			case FaultErrorFrame, FaultErrorString:
				st.wr.fault(st, a, a.fault == FaultErrorString)
				return
			}
			if err != nil {
				return
			}
		}
		if k == a.n {
			break
		}
		if err := st.emit(st.wr.token(st, a, st.piece(a, k, bigAt)), true); err != nil {
			return
		}
	}
	_ = st.wr.close(st, a)
}

// whole sends a's answer as one chat.completion after the whole schedule.
func (st *stream) whole(a *answer) {
	s := st.s
	if err := st.waitUntil(st.start.Add(a.plan.Finish)); err != nil {
		return
	}
	switch a.fault {
	case FaultCut:
		panic(http.ErrAbortHandler)
	case FaultStall:
		_ = st.waitUntil(time.Time{})
		return
	case FaultMalformed:
		st.w.Header().Set("Content-Type", "application/json")
		st.w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(st.w, "{not json")
		return
	}
	var content, reasoning strings.Builder
	for k := range a.n {
		if k < a.reasoning {
			reasoning.WriteString(unquote(s.thoughts[k%len(s.thoughts)]))
		} else {
			content.WriteString(unquote(s.words[(k-a.reasoning)%len(s.words)]))
		}
	}
	msg := map[string]any{"role": "assistant", "content": content.String()}
	if a.reasoning > 0 {
		msg[s.p.reasoningField()] = reasoning.String()
	}
	resp := map[string]any{
		"id":                 "chatcmpl-sim-" + strconv.Itoa(a.seq),
		"object":             "chat.completion",
		"created":            st.start.Unix(),
		"model":              a.model,
		"system_fingerprint": s.fingerprint,
		"choices":            []any{map[string]any{"index": 0, "message": msg, "finish_reason": a.finish}},
	}
	if a.usage {
		resp["usage"] = json.RawMessage(appendUsage(nil, a))
	}
	if st.rec != nil {
		st.rec.Status = http.StatusOK
	}
	writeJSON(st.w, http.StatusOK, resp)
	if st.rec != nil {
		st.rec.Header = time.Now()
	}
}

// appendPrefix appends `data: {"id":…,"choices":[`.
func (st *stream) appendPrefix(b []byte, a *answer, object string) []byte {
	b = append(b, `data: {"id":"chatcmpl-sim-`...)
	b = strconv.AppendInt(b, int64(a.seq), 10)
	b = append(b, `","object":"`...)
	b = append(b, object...)
	b = append(b, `","created":`...)
	b = strconv.AppendInt(b, st.start.Unix(), 10)
	b = append(b, `,"model":`...)
	model, _ := json.Marshal(a.model) // a string always marshals
	b = append(b, model...)
	b = append(b, `,"system_fingerprint":"`...)
	b = append(b, st.s.fingerprint...)
	return append(b, `","choices":[`...)
}

// chunk builds a choice chunk whose delta is head+text into st.buf.
func (st *stream) chunk(head, text, finish string) []byte {
	b := append(st.buf[:0], st.prefix...)
	b = append(b, `{"index":0,"delta":{`...)
	b = append(b, head...)
	b = append(b, text...)
	b = append(b, `},"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = append(b, finish...)
		b = append(b, '"')
	}
	b = append(b, "}]}\n\n"...)
	st.buf = b
	return b
}

// usageChunk builds the usage chunk (choices: []) into st.buf.
func (st *stream) usageChunk(a *answer) []byte {
	b := append(st.buf[:0], st.prefix...)
	b = append(b, `],"usage":`...)
	b = appendUsage(b, a)
	b = append(b, "}\n\n"...)
	st.buf = b
	return b
}

func appendUsage(b []byte, a *answer) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(a.promptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(a.n), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(a.promptTokens+a.n), 10)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(a.cached), 10)
	b = append(b, `},"completion_tokens_details":{"reasoning_tokens":`...)
	b = strconv.AppendInt(b, int64(a.reasoning), 10)
	return append(b, "}}"...)
}

// emit writes one frame (in two flushed halves for FaultSplit) and flushes;
// for a token it records when the flush returned.
func (st *stream) emit(frame []byte, token bool) error {
	if st.hold {
		st.held = append(st.held, frame...)
		if token {
			st.heldTokens++
		}
		st.last = time.Now() // a proxy keeps its upstream alive, not the client
		return nil
	}
	if st.split && frame[0] != ':' {
		h := len(frame) / 2
		if _, err := st.w.Write(frame[:h]); err != nil {
			return err
		}
		if err := st.rc.Flush(); err != nil {
			return err
		}
		frame = frame[h:]
	}
	if _, err := st.w.Write(frame); err != nil {
		return err
	}
	if err := st.rc.Flush(); err != nil {
		return err
	}
	st.last = time.Now()
	if token && st.rec != nil {
		st.rec.Tokens = append(st.rec.Tokens, st.last)
	}
	return nil
}

// release writes and flushes the events held by Profile.Buffer at once,
// and records every held token at that flush.
func (st *stream) release() {
	if !st.hold {
		return
	}
	st.hold = false
	held, n := st.held, st.heldTokens
	st.held, st.heldTokens = nil, 0
	if len(held) == 0 {
		return
	}
	if _, err := st.w.Write(held); err != nil {
		return
	}
	if st.rc.Flush() != nil {
		return
	}
	st.last = time.Now()
	if st.rec != nil {
		for range n {
			st.rec.Tokens = append(st.rec.Tokens, st.last)
		}
	}
}

// waitUntil waits until at (for ever when at is zero) or until the client
// goes or the server closes, sending a keep-alive comment whenever the
// stream has been silent for the profile's KeepAlive.
func (st *stream) waitUntil(at time.Time) error {
	for {
		next, ping := at, false
		if st.keepAlive > 0 {
			if k := st.last.Add(st.keepAlive); at.IsZero() || k.Before(at) {
				next, ping = k, true
			}
		}
		if err := st.sleepUntil(next); err != nil {
			return err
		}
		if !ping {
			return nil
		}
		frame := []byte(keepAliveFrame)
		if pw, ok := st.wr.(pinger); ok {
			frame = pw.ping()
		}
		if err := st.emit(frame, false); err != nil {
			return err
		}
	}
}

// sleepUntil sleeps on a timer until at minus the profile's Spin, then spins
// (yielding) until at. A zero at means for ever.
func (st *stream) sleepUntil(at time.Time) error {
	at = st.s.stalled(at)
	var wait <-chan time.Time
	spin := st.s.p.Spin
	if !at.IsZero() {
		d := time.Until(at) - spin
		if d <= 0 {
			return st.spin(at)
		}
		if st.timer == nil {
			st.timer = time.NewTimer(d)
		} else {
			st.timer.Reset(d)
		}
		wait = st.timer.C
	}
	select {
	case <-wait:
		return st.spin(at)
	case <-st.ctx.Done():
		return context.Cause(st.ctx)
	case <-st.s.done:
		return errClosed
	}
}

// stalled returns at, or the end of the profile's stall when at falls in
// it: nothing goes out during a stall.
func (s *Server) stalled(at time.Time) time.Time {
	if s.p.Stall <= 0 || at.IsZero() {
		return at
	}
	from := s.first.Add(s.p.StallAt)
	if to := from.Add(s.p.Stall); !at.Before(from) && at.Before(to) {
		return to
	}
	return at
}

func (st *stream) spin(at time.Time) error {
	if err := st.ctx.Err(); err != nil {
		return err
	}
	for st.s.p.Spin > 0 && time.Now().Before(at) {
		runtime.Gosched()
	}
	return nil
}

func (st *stream) stopTimer() {
	if st.timer != nil {
		st.timer.Stop()
	}
}

// fail writes an error response in the wire's shape.
func (st *stream) fail(status int, typ, code, msg string) {
	if st.rec != nil {
		st.rec.Status = status
	}
	st.wr.writeError(st.w, status, typ, code, msg)
}

// failFault answers with the status of fault; key is the credential the
// request presented (its Authorization header, or its API's key header).
func (st *stream) failFault(fault, key string) {
	switch fault {
	case Fault429:
		secs := (st.s.p.RetryAfter + time.Second - 1) / time.Second
		st.w.Header().Set("Retry-After", strconv.FormatInt(max(1, int64(secs)), 10))
		st.fail(http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached (simulated).")
	case Fault500:
		st.fail(http.StatusInternalServerError, "server_error", "internal_error", "The server had an error while processing your request (simulated).")
	case Fault401:
		st.fail(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided (simulated).")
	case Fault403:
		st.fail(http.StatusForbidden, "permission_error", "forbidden", "You are not allowed to use this model (simulated).")
	case FaultEchoKey:
		st.fail(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: "+key)
	case FaultOverloaded:
		status := http.StatusServiceUnavailable
		if _, ok := st.wr.(anthropicWire); ok {
			status = 529 // Anthropic's own status for an overloaded API
		}
		st.fail(status, "server_error", "overloaded", "The model is overloaded (simulated).")
	}
}

func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	type apiError struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	}
	writeJSON(w, status, struct {
		Error apiError `json:"error"`
	}{apiError{Message: msg, Type: typ, Code: code}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		body = fmt.Appendf(nil, `{"error":{"message":%q,"type":"server_error"}}`, err.Error())
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// unquote strips the quotes of a pre-quoted word (plain ASCII, no escapes).
func unquote(q string) string { return q[1 : len(q)-1] }

// swapped reports whether, with Profile.Swap, model differs from the one
// served last (the first request loads it too), and makes it the one
// loaded.
func (s *Server) swapped(model string) bool {
	if s.p.Swap <= 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	was := s.loaded
	s.loaded = model
	return was != model
}
