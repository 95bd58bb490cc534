// Package cache serves cached pages over HTTP.
package cache

import (
	"net/http"
	"sync"
)

// MaxEntries bounds the cache.
const MaxEntries = 1024

// Page is one cached response.
type Page struct {
	Body   []byte
	Status int
}

// Getter fetches a page on a miss.
type Getter interface {
	Get(key string) (*Page, error)
}

type Key = string

// Server answers requests from the cache.
type Server struct {
	mu    sync.Mutex
	pages map[Key]*Page
	next  Getter
}

// NewServer builds a server in front of next.
func NewServer(next Getter) *Server {
	return &Server{pages: make(map[Key]*Page), next: next}
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page, err := s.lookup(r.URL.Path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.WriteHeader(page.Status)
	w.Write(page.Body)
}

func (s *Server) lookup(key Key) (*Page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pages[key]; ok {
		return p, nil
	}
	return s.next.Get(key)
}

// Len counts the pages held.
func (s Server) Len() int { return len(s.pages) }
