package com.example.billing;

import java.util.ArrayList;
import java.util.List;

/**
 * A ledger of postings.
 */
public class Ledger {
    private final List<Posting> postings = new ArrayList<>();

    /** One posting. */
    public record Posting(String account, long cents) {}

    public enum Side { DEBIT, CREDIT }

    /**
     * Posts an amount.
     */
    @Deprecated
    public void post(String account, long cents) {
        postings.add(new Posting(account, cents));
    }

    public void post(Posting posting) {
        postings.add(posting);
    }

    public Ledger() {}

    interface Visitor {
        void visit(Posting p);
    }

    static class Totals implements Visitor {
        long sum;

        @Override
        public void visit(Posting p) {
            sum += p.cents();
        }
    }
}
