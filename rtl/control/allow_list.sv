// SPDX-License-Identifier: Apache-2.0
//
// allow_list: a list of {source, destination} IPv4 address pairs, programmed over AXI4-Lite
// and looked up by the datapath, one lookup per cycle (docs/gre_decap.md, 0x1000 window).
//
// Register map (byte addresses relative to the window)
//   16*i + 0x0   SRC[i]     RW   entry i source address
//   16*i + 0x4   DST[i]     RW   entry i destination address
//   16*i + 0x8   VALID[i]   RW   bit 0: entry i valid (bits 31:1 read 0)
//   16*i + 0xC   -               unmapped
//
// AXI4-Lite behaviour (the slave front end is axil_reg_if)
//   * ADDR_W-bit byte address, 32-bit data. Address bits [1:0] are ignored (word access only);
//     all other address bits are decoded (an entry index >= ENTRIES is unmapped).
//   * One write and one read may be in flight at the same time (the two channels are
//     independent); each channel accepts its next request after its response was taken.
//   * Write: AW and W are accepted in either order or together. A VALID write (and any
//     SLVERR write) is performed in the cycle after both are present and B is raised in the
//     cycle after that; a SRC/DST write runs the table update below and B is raised 10 cycles after the
//     cycle both are present. A write waits one cycle when a read is accepted in that cycle.
//   * Read: AR is accepted when no R is pending; R follows 3 cycles after the AR handshake.
//   * WSTRB selects byte lanes (VALID: lane 0); a write with WSTRB = 0 changes nothing (and
//     still answers OKAY).
//   * Unmapped addresses (reads and writes) answer SLVERR (2'b10) with read data 0.
//     AWPROT/ARPROT are ignored.
//
// Storage: a bit-sliced CAM in block RAM
//   * The key {src, dst} (64 bits) is cut into NCHUNK chunks of CHUNK_W bits (the last one
//     narrower: 64 = 6*10 + 4 with the default). Chunk c has a table tab_c of 2**w_c words of
//     ENTRIES bits: bit i of word v is set iff chunk c of entry i's key is v. A lookup reads
//     the word of each of its chunks; entry i matches iff bit i is set in all of them and
//     entry i is valid. Each table is a true-dual-port RAM: port A reads for the lookup,
//     port B reads and writes for the control side (a 1024x18 DP16KD each 18 entries).
//   * The keys themselves are kept in a shadow RAM (ENTRIES x 64, one read and one write
//     port) that serves the AXI reads and gives a write the key it replaces. VALID is in
//     flip-flops (reset to 0); the tables and the shadow are not reset: they start (FPGA
//     configuration, simulation start) as every key 0 (SRC/DST read 0), consistent, and stay
//     so. Invariant: bit i of a table word is set only where the shadow's key i has that
//     chunk value, so a table never makes a pair hit that no entry holds.
//   * A SRC/DST write of entry i, from the cycle c0 both AW and W are present: c0 reads the
//     shadow, c2 forms the new key (byte lanes of WSTRB); on port B of every table (address,
//     data and enables registered) c4 reads the old key's word, c6 writes it back with bit i
//     cleared, c7 reads the new key's word, c9 writes it with bit i set and the new key into
//     the shadow; B is raised in c10. A reset during the sequence stops it; the invariant
//     holds (entry i may then match nothing until it is written again). Port B never writes
//     a word that port A reads in the same cycle without the lookup using the word port B
//     read before it (the RAM's output is not used on such a collision), so every lookup
//     sees each table either before or after a write.
//
// Lookup
//   * lookup_hit answers exactly LOOKUP_LATENCY cycles after lookup_src/lookup_dst are
//     presented: some valid entry i had src == lookup_src and dst == lookup_dst.
//     LOOKUP_LATENCY 1: the tables' words are AND-ed and OR-ed in the cycle they are read
//     (a long path: only for a user that cannot present the pair earlier); 2: the per-entry
//     match is registered and lookup_hit is the OR of ENTRIES registers; 3: the words read
//     are registered before the per-entry match too.
//   * Write rule: a write takes effect for the lookups presented from the cycle B is raised
//     on. A VALID write is seen by lookups presented from that cycle exactly (earlier ones
//     see the old VALID). During a SRC/DST write (presented from its c0 to c9) the old pair
//     of entry i still hits up to the lookup presented in c6 and the new pair hits from c10;
//     between the two neither hits through entry i (other entries are not affected).

`default_nettype none

module allow_list #(
    // Number of entries (1 .. 2**(ADDR_W-4), at most 256)
    parameter int ENTRIES        = 64,
    // AXI4-Lite byte address width (the window is 2**ADDR_W bytes)
    parameter int ADDR_W         = 12,
    // Cycles from lookup_src/lookup_dst to lookup_hit (1..3, see "Lookup")
    parameter int LOOKUP_LATENCY = 2,
    // Key bits per CAM table (1..12): a table has 2**CHUNK_W words of ENTRIES bits
    parameter int CHUNK_W        = 10
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // AXI4-Lite slave
    input  wire logic [ADDR_W-1:0] s_axil_awaddr,
    input  wire logic [2:0]        s_axil_awprot,
    input  wire logic              s_axil_awvalid,
    output      logic              s_axil_awready,
    input  wire logic [31:0]       s_axil_wdata,
    input  wire logic [3:0]        s_axil_wstrb,
    input  wire logic              s_axil_wvalid,
    output      logic              s_axil_wready,
    output      logic [1:0]        s_axil_bresp,
    output      logic              s_axil_bvalid,
    input  wire logic              s_axil_bready,
    input  wire logic [ADDR_W-1:0] s_axil_araddr,
    input  wire logic [2:0]        s_axil_arprot,
    input  wire logic              s_axil_arvalid,
    output      logic              s_axil_arready,
    output      logic [31:0]       s_axil_rdata,
    output      logic [1:0]        s_axil_rresp,
    output      logic              s_axil_rvalid,
    input  wire logic              s_axil_rready,

    // Lookup: lookup_hit is the answer for the pair presented LOOKUP_LATENCY cycles before
    input  wire logic [31:0]       lookup_src,
    input  wire logic [31:0]       lookup_dst,
    output      logic              lookup_hit
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (ADDR_W < 5 || ADDR_W > 32) begin : g_check_addr_w
        $error("allow_list: ADDR_W (%0d) must be 5..32", ADDR_W);
    end
    if (ENTRIES < 1 || ENTRIES > 256 || ENTRIES > 2 ** (ADDR_W - 4)) begin : g_check_entries
        $error("allow_list: ENTRIES (%0d) must be 1..min(256, 2**(ADDR_W-4))", ENTRIES);
    end
    if (LOOKUP_LATENCY < 1 || LOOKUP_LATENCY > 3) begin : g_check_latency
        $error("allow_list: LOOKUP_LATENCY (%0d) must be 1..3", LOOKUP_LATENCY);
    end
    if (CHUNK_W < 1 || CHUNK_W > 12) begin : g_check_chunk_w
        $error("allow_list: CHUNK_W (%0d) must be 1..12", CHUNK_W);
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam int KEY_W  = 64;                                   // {src, dst}
    localparam int NCHUNK = (KEY_W + CHUNK_W - 1) / CHUNK_W;      // CAM tables
    localparam int WA_W   = ADDR_W - 2;                           // word address width
    localparam int IDX_W  = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;  // entry index width

    // A mapped word address: entry index (word address [WA_W-1:2]) < ENTRIES, field != 3
    function automatic logic is_entry_addr(input logic [WA_W-1:0] a);
        is_entry_addr = 32'(a[WA_W-1:2]) < 32'(ENTRIES) && a[1:0] != 2'd3;
    endfunction

    // Byte-lane merge of a write into a 32-bit register
    function automatic logic [31:0] apply_strb(input logic [31:0] old, input logic [31:0] data,
                                               input logic [3:0] strb);
        logic [31:0] r;
        for (int b = 0; b < 4; b++) begin
            r[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        end
        apply_strb = r;
    endfunction

    // ------------------------------------------------------------------------------------
    // AXI4-Lite front end
    // ------------------------------------------------------------------------------------
    logic            wr_ready;
    logic            wr_req;
    logic [WA_W-1:0] wr_addr; // word address
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_ack;
    logic            wr_err;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr; // word address
    logic            rd_ack;
    logic [31:0]     rd_data;
    logic            rd_err;

    axil_reg_if #(
        .ADDR_W (ADDR_W)
    ) u_axil (
        .clk            (clk),
        .rst            (rst),
        .s_axil_awaddr  (s_axil_awaddr),
        .s_axil_awprot  (s_axil_awprot),
        .s_axil_awvalid (s_axil_awvalid),
        .s_axil_awready (s_axil_awready),
        .s_axil_wdata   (s_axil_wdata),
        .s_axil_wstrb   (s_axil_wstrb),
        .s_axil_wvalid  (s_axil_wvalid),
        .s_axil_wready  (s_axil_wready),
        .s_axil_bresp   (s_axil_bresp),
        .s_axil_bvalid  (s_axil_bvalid),
        .s_axil_bready  (s_axil_bready),
        .s_axil_araddr  (s_axil_araddr),
        .s_axil_arprot  (s_axil_arprot),
        .s_axil_arvalid (s_axil_arvalid),
        .s_axil_arready (s_axil_arready),
        .s_axil_rdata   (s_axil_rdata),
        .s_axil_rresp   (s_axil_rresp),
        .s_axil_rvalid  (s_axil_rvalid),
        .s_axil_rready  (s_axil_rready),
        .wr_ready       (wr_ready),
        .wr_req         (wr_req),
        .wr_addr        (wr_addr),
        .wr_data        (wr_data),
        .wr_strb        (wr_strb),
        .wr_ack         (wr_ack),
        .wr_err         (wr_err),
        .rd_req         (rd_req),
        .rd_addr        (rd_addr),
        .rd_ack         (rd_ack),
        .rd_data        (rd_data),
        .rd_err         (rd_err)
    );

    // ------------------------------------------------------------------------------------
    // Write decode and sequence (c0 = the wr_req cycle; seq_q[k] is high in cycle c(k+1))
    // ------------------------------------------------------------------------------------
    logic             wr_ok;
    logic             wr_key;     // a SRC/DST write: runs the sequence
    logic [IDX_W-1:0] wr_idx;
    logic [8:0]       seq_q;      // c1 .. c9
    logic [IDX_W-1:0] seq_idx_q;  // data: not reset
    logic             seq_dst_q;  // data: the write is to DST
    logic [31:0]      seq_data_q; // data
    logic [3:0]       seq_strb_q; // data
    // A VALID write and any SLVERR write: performed and answered in c1 (from registers)
    logic             wr1_q;
    logic             wr1_err_q;   // data
    logic             vwr_q;       // a VALID write with byte lane 0
    logic [IDX_W-1:0] vwr_idx_q;   // data
    logic             vwr_data_q;  // data

    // One shadow read port for the AXI reads and the sequence: a write waits for a read
    assign wr_ready = !rd_req;
    assign wr_ok    = is_entry_addr(wr_addr);
    assign wr_idx   = wr_addr[2 +: IDX_W];
    assign wr_key   = wr_req && wr_ok && wr_addr[1:0] != 2'd2;
    assign wr_ack   = wr1_q || seq_q[8];
    assign wr_err   = wr1_q && wr1_err_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            wr1_q <= 1'b0;
            vwr_q <= 1'b0;
        end else begin
            wr1_q <= wr_req && !wr_key;
            vwr_q <= wr_req && wr_ok && wr_addr[1:0] == 2'd2 && wr_strb[0];
        end
    end

    always_ff @(posedge clk) begin
        wr1_err_q  <= !wr_ok;
        vwr_idx_q  <= wr_idx;
        vwr_data_q <= wr_data[0];
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            seq_q <= '0;
        end else begin
            seq_q <= {seq_q[7:0], wr_key};
        end
    end

    always_ff @(posedge clk) begin
        if (wr_key) begin
            seq_idx_q  <= wr_idx;
            seq_dst_q  <= wr_addr[0];
            seq_data_q <= wr_data;
            seq_strb_q <= wr_strb;
        end
    end

    // VALID: flip-flops
    logic [ENTRIES-1:0] valid_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            valid_q <= '0;
        end else if (vwr_q) begin
            valid_q[vwr_idx_q] <= vwr_data_q;
        end
    end

    // ------------------------------------------------------------------------------------
    // Shadow of the keys: address registered (c0 / read R0), read into sh_q (c1 / R1)
    // ------------------------------------------------------------------------------------
    logic [IDX_W-1:0] rd_idx;
    logic [IDX_W-1:0] sh_raddr;
    logic [IDX_W-1:0] sh_raddr_q; // data: the address is registered, the read is not
    logic [KEY_W-1:0] sh_q;      // data
    logic [KEY_W-1:0] key_old_q; // data: the key being replaced (from c2)
    logic [KEY_W-1:0] key_new_q; // data: the key being written (from c2)

    assign rd_idx   = rd_addr[2 +: IDX_W];
    assign sh_raddr = rd_req ? rd_idx : wr_idx;

    (* ram_style = "distributed" *)  // LUT RAM: a block RAM's output would be too late for sh_q
    logic [KEY_W-1:0] sh_mem [ENTRIES];

    initial begin
        for (int i = 0; i < ENTRIES; i++) sh_mem[i] = '0;
    end

    always_ff @(posedge clk) begin
        if (seq_q[8]) sh_mem[seq_idx_q] <= key_new_q;
    end

    always_ff @(posedge clk) begin
        sh_raddr_q <= sh_raddr;
        sh_q       <= sh_mem[sh_raddr_q];
    end

    // c2: the old and the new key
    always_ff @(posedge clk) begin
        if (seq_q[1]) begin
            key_old_q <= sh_q;
            key_new_q <= seq_dst_q ? {sh_q[63:32], apply_strb(sh_q[31:0], seq_data_q, seq_strb_q)}
                                   : {apply_strb(sh_q[63:32], seq_data_q, seq_strb_q), sh_q[31:0]};
        end
    end

    // Entry i as a one-hot mask (registered in c1, used from c4)
    logic [ENTRIES-1:0] seq_bit_q;

    always_ff @(posedge clk) begin
        for (int i = 0; i < ENTRIES; i++) begin
            seq_bit_q[i] <= seq_idx_q == IDX_W'(i);
        end
    end

    // Port B of the tables, every control registered: c3 addresses the old key's words, c4
    // reads them, c5 forms them with bit i cleared, c6 writes them; c6 addresses the new
    // key's words, c7 reads them, c8 forms them with bit i set, c9 writes them
    logic tb_re_q;   // c4, c7
    logic tb_we_q;   // c6, c9

    always_ff @(posedge clk) begin
        if (rst) begin
            tb_re_q <= 1'b0;
            tb_we_q <= 1'b0;
        end else begin
            tb_re_q <= seq_q[2] || seq_q[5];
            tb_we_q <= seq_q[4] || seq_q[7];
        end
    end

    // ------------------------------------------------------------------------------------
    // Read data (R0: rd_req, R1: shadow read, R2: answer from sh_q)
    // ------------------------------------------------------------------------------------
    logic [1:0] rd_p_q;      // R1, R2
    logic       rd_ok_q;     // data
    logic [1:0] rd_field_q;  // data
    logic       rd_valid_q;  // data: VALID of the entry at R0
    logic       rd_ok1_q;    // data
    logic [1:0] rd_field1_q; // data
    logic       rd_valid1_q; // data

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_p_q <= '0;
        end else begin
            rd_p_q <= {rd_p_q[0], rd_req};
        end
    end

    always_ff @(posedge clk) begin
        rd_ok1_q    <= is_entry_addr(rd_addr);
        rd_field1_q <= rd_addr[1:0];
        rd_valid1_q <= valid_q[rd_idx];
        rd_ok_q     <= rd_ok1_q;
        rd_field_q  <= rd_field1_q;
        rd_valid_q  <= rd_valid1_q;
    end

    assign rd_ack = rd_p_q[1];
    assign rd_err = !rd_ok_q;

    always_comb begin
        rd_data = 32'd0;
        if (rd_ok_q) begin
            unique case (rd_field_q)
                2'd0:    rd_data = sh_q[63:32];
                2'd1:    rd_data = sh_q[31:0];
                default: rd_data = {31'd0, rd_valid_q};
            endcase
        end
    end

    // ------------------------------------------------------------------------------------
    // Lookup stage 0 (cycle T): the words of every table are read on port A
    // ------------------------------------------------------------------------------------
    logic [KEY_W-1:0] lk_key;
    assign lk_key = {lookup_src, lookup_dst};

    logic [NCHUNK-1:0][ENTRIES-1:0] vec;   // cycle T+1: the word of each table
    logic [NCHUNK-1:0][ENTRIES-1:0] vec_a; // ... port A's (not to be used on a collision)
    logic [NCHUNK-1:0][ENTRIES-1:0] vec_b; // ... port B's (the word before the write)
    logic [NCHUNK-1:0]              vec_cl;// ... a collision: use vec_b
    logic                           unused_vec; // each latency uses vec or the other three
    assign unused_vec = ^{vec, vec_a, vec_b, vec_cl};
    logic [ENTRIES-1:0]             valid_s1_q;

    // VALID as it is in cycle T (so a VALID write is seen from its B cycle on)
    always_ff @(posedge clk) begin
        if (rst) begin
            valid_s1_q <= '0;
        end else begin
            valid_s1_q <= valid_q;
        end
    end

    for (genvar c = 0; c < NCHUNK; c++) begin : g_tab
        localparam int LSB = c * CHUNK_W;
        localparam int W   = (KEY_W - LSB < CHUNK_W) ? KEY_W - LSB : CHUNK_W;

        // A read of port A and a write of port B to one word in one cycle: the read's data is
        // not used (no_rw_check: no read-first or write-through logic around the RAM)
        (* no_rw_check *)
        logic [ENTRIES-1:0] tab [2 ** W];
        logic [ENTRIES-1:0] rd_a_q;   // port A word (lookup)
        logic [ENTRIES-1:0] rd_b_q;   // port B word (control)
        logic [W-1:0]       lk_addr;
        logic [W-1:0]       tb_addr_q;   // data
        logic [ENTRIES-1:0] tb_wdata_q;  // data
        logic               lk_coll;  // port B writes the word port A would read
        logic               coll_q;   // ... in the previous cycle: use rd_b_q

        initial begin
            for (int v = 0; v < 2 ** W; v++) tab[v] = (v == 0) ? '1 : '0;
        end

        assign lk_addr  = lk_key[LSB +: W];
        always_ff @(posedge clk) begin
            if (seq_q[2]) tb_addr_q <= key_old_q[LSB +: W];
            if (seq_q[5]) tb_addr_q <= key_new_q[LSB +: W];
            if (seq_q[4] || seq_q[7]) begin
                tb_wdata_q <= seq_q[7] ? (rd_b_q | seq_bit_q) : (rd_b_q & ~seq_bit_q);
            end
        end

        // Port A: lookup read (on a collision the lookup uses rd_b_q)
        always_ff @(posedge clk) begin
            rd_a_q <= tab[lk_addr];
        end

        // Port B: control write or read (no change on write)
        always_ff @(posedge clk) begin
            if (tb_we_q) begin
                tab[tb_addr_q] <= tb_wdata_q;
            end else if (tb_re_q) begin
                rd_b_q <= tab[tb_addr_q];
            end
        end

        // A collision: port B holds the word as it was before the write (it does not read
        // in a write cycle nor in the cycle after one)
        assign lk_coll = tb_we_q && tb_addr_q == lk_addr;

        always_ff @(posedge clk) begin
            coll_q <= lk_coll;
        end

        assign vec[c]    = coll_q ? rd_b_q : rd_a_q;
        assign vec_a[c]  = rd_a_q;
        assign vec_b[c]  = rd_b_q;
        assign vec_cl[c] = coll_q;
    end

    // ------------------------------------------------------------------------------------
    // Lookup stages 1.. : per-entry match, OR
    // ------------------------------------------------------------------------------------
    // Per-entry match of a set of words and VALID
    function automatic logic [ENTRIES-1:0] match(input logic [NCHUNK-1:0][ENTRIES-1:0] w,
                                                 input logic [ENTRIES-1:0] v);
        logic [ENTRIES-1:0] m;
        m = v;
        for (int c = 0; c < NCHUNK; c++) begin
            m &= w[c];
        end
        match = m;
    endfunction

    if (LOOKUP_LATENCY == 1) begin : g_lat1
        assign lookup_hit = |match(vec, valid_s1_q);
    end else if (LOOKUP_LATENCY == 2) begin : g_lat2
        logic [ENTRIES-1:0] hit_q;

        always_ff @(posedge clk) begin
            if (rst) begin
                hit_q <= '0;
            end else begin
                hit_q <= match(vec, valid_s1_q);
            end
        end

        assign lookup_hit = |hit_q;
    end else begin : g_lat3
        // The RAMs' outputs go straight into registers (a block RAM's clock-to-output leaves
        // no room for logic); the collision select is made a cycle later
        logic [NCHUNK-1:0][ENTRIES-1:0] vec_a_q;  // data
        logic [NCHUNK-1:0][ENTRIES-1:0] vec_b_q;  // data
        logic [NCHUNK-1:0]              vec_cl_q; // data
        logic [NCHUNK-1:0][ENTRIES-1:0] vec_q;
        logic [ENTRIES-1:0]             valid_s2_q;
        logic [ENTRIES-1:0]             hit_q;

        always_ff @(posedge clk) begin
            vec_a_q  <= vec_a;
            vec_b_q  <= vec_b;
            vec_cl_q <= vec_cl;
        end

        for (genvar c = 0; c < NCHUNK; c++) begin : g_sel
            assign vec_q[c] = vec_cl_q[c] ? vec_b_q[c] : vec_a_q[c];
        end

        always_ff @(posedge clk) begin
            if (rst) begin
                valid_s2_q <= '0;
                hit_q      <= '0;
            end else begin
                valid_s2_q <= valid_s1_q;
                hit_q      <= match(vec_q, valid_s2_q);
            end
        end

        assign lookup_hit = |hit_q;
    end

endmodule

`default_nettype wire
