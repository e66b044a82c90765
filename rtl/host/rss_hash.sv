// SPDX-License-Identifier: Apache-2.0
//
// rss_hash: receive-side scaling for the host interface (docs/rss.md). One parsed tuple per
// cycle in, no backpressure; LATENCY (10) cycles later its Toeplitz hash (Microsoft's RSS
// specification, 40-byte key), its hash type and the queue the indirection table selects.
// The golden model is wirespeed/model/rss.py.
//
// Input (cycle t, when in_valid)
//   * in_ipv4 / in_ipv6: the frame's L3. Neither, or both, is an unknown or malformed frame:
//     type NONE, hash 0, queue DEFAULT_QUEUE, counted in CNT_DEFAULT.
//   * in_tcp / in_udp: the L4 (TCP or UDP header present and whole). Neither, or both: other.
//     The parser presents an IPv4 fragment as L4 other (the 2-tuple, as the specification
//     requires for every fragment, the first one included).
//   * in_src / in_dst: the addresses; IPv4 in bits [31:0] (bits [127:32] are ignored).
//     in_sport / in_dport: the L4 ports (ignored for L4 other).
//
// Hash types (out_type) and the enables (CTRL[5:0], bit = type - 1)
//   0 NONE, 1 IPV4 (src, dst: 8 bytes), 2 TCP_IPV4, 3 UDP_IPV4 (src, dst, sport, dport: 12),
//   4 IPV6 (32 bytes), 5 TCP_IPV6, 6 UDP_IPV6 (36 bytes). A TCP (UDP) tuple is hashed as
//   TCP_IPVx (UDP_IPVx) if that type is enabled, else as IPVx if enabled, else not (NONE);
//   any other IP tuple as IPVx if enabled, else NONE.
//   Symmetric mode (CTRL[8]): the (address, port) pair that is smaller as one unsigned number
//   {address, port} is put first (the port taken as 0 for the 2-tuple types), so both
//   directions of a flow give one hash input, hence one hash and one queue.
//
// Output (cycle t + LATENCY for the tuple of cycle t)
//   out_valid, out_hash (0 for NONE), out_type, out_queue: INDIR[hash mod TABLE_ENTRIES], or
//   DEFAULT_QUEUE for NONE.
//
// Register map (byte addresses; ADDR_W-bit window, every address bit decoded)
//   0x000  CTRL          RW  [5:0] type enables (reset 0x3F), [8] SYM (reset 0)
//   0x004  DEFAULT_QUEUE RW  [QUEUE_W-1:0] (reset 0)
//   0x008  KEY_CTRL      W   bit 0 = 1 (byte lane 0): load the key KEY[0..9] (a rebuild);
//                        R   [0] BUSY (a rebuild runs), [1] BANK (the table bank in use)
//   0x00C  INFO          RO  [9:0] TABLE_ENTRIES, [20:16] QUEUE_W, [31:24] LATENCY
//   0x010  CNT_TUPLES    RO  tuples out (32 bits, wraps)
//   0x014  CNT_DEFAULT   RO  tuples out with type NONE (32 bits, wraps)
//   0x040 + 4*i  KEY[i]  RW  i = 0..9: key bytes 4i..4i+3, byte 4i in bits [31:24] (the key
//                            as the specification writes it: KEY[0] = 0x6d5a56da for its
//                            example key, which is the reset value of KEY[])
//   0x800 + 4*i  INDIR[i] RW i < TABLE_ENTRIES: [QUEUE_W-1:0] the queue of hash index i
//                            (not reset; 0 at configuration)
//   Reads of bits not listed return 0. A write to INFO or a counter, and any access to an
//   address not listed, answers SLVERR and changes nothing.
//
// AXI4-Lite behaviour (the slave front end is axil_reg_if)
//   * 32-bit data, word access (address bits [1:0] ignored), AWPROT/ARPROT ignored.
//   * One write and one read may be in flight at once. A write is answered in the cycle both
//     AW and W are present (c0: B is raised in c0 + 1) and performed at the end of c0 + 1 (its
//     request is registered first); it waits one cycle when a read is accepted in that cycle.
//     R is raised 5 cycles after the AR handshake.
//   * WSTRB selects byte lanes for CTRL, DEFAULT_QUEUE and KEY[]; KEY_CTRL acts on lane 0 only;
//     an INDIR write needs lane 0 (and lane 1 when QUEUE_W > 8), else it changes nothing.
//
// When a write takes effect (tuple "of cycle t" = presented in cycle t; c0 = the write's cycle)
//   * CTRL: tuples of cycles >= c0 + 2. DEFAULT_QUEUE: tuples of cycles >= c0 - 7 (it is
//     read in the cycle before the output registers).
//   * INDIR[i]: the table word is written at the end of c0 + 2; tuples of cycles >= c0 - 5 see
//     the new entry (their table read is at the end of cycle t + 7; a read and a write of one
//     entry at one edge give the written word), earlier ones the old.
//   * KEY[i]: a staging copy; nothing changes until KEY_CTRL loads it.
//   * KEY_CTRL load, the rebuild: from the end of c0 + 2 the contribution tables of the bank
//     not in use are recomputed from the staging key, one entry per cycle (36 x 256 = 9216
//     entries), and then BANK flips: tuples of cycles >= c0 + KEY_FROM (9218) are hashed with
//     the new key, every earlier one with the old key; no tuple sees a mix (a key change
//     takes 9218 cycles, 56 us at 165 MHz). STATUS.BUSY is 1 from c0 + 3 until BANK flips. A
//     load while a rebuild runs restarts it (the bank in use is not touched). Reset starts a
//     rebuild with the reset key (KEY[] = Microsoft's key); until it ends, the bank in use
//     stays as it was (all-zero tables at configuration: every hash 0).
//
// Pipeline (registers at the end of each cycle; cycle t = the tuple's input cycle)
//   t      hash type from the flags and enables; address bits of IPv4 and unused ports zeroed
//   t+1    symmetric compare by 16-bit chunks; the hash input bytes laid out both ways (the
//          pairs in order and swapped)
//   t+2    the chunks combined: swap
//   t+3    the input bytes, one way or the other, address the 36 contribution tables
//   t+4    the tables' words into the block RAMs' output registers (ram_sdp_reg), no logic
//   t+5    into plain registers, no logic
//   t+6    XOR 36 -> 1 (three LUT levels): the hash
//   t+7    the hash's low bits address the indirection table (port B's write to the same
//          entry in this cycle is noted: its word bypasses the read)
//   t+8    the table's word into the block RAM's output register (ram_tdp_reg), no logic
//   t+9    queue (entry, bypass or DEFAULT_QUEUE), hash, type into the output registers
//
// Contribution tables: the hash is the XOR over input bit positions b that are set of the key
// window K[b .. b+31]. For input byte p (0..35) and value v, table p holds the XOR of the
// windows of v's set bits, so the hash is the XOR of 36 table words. Each table is a block RAM
// of 2 banks x 256 words x 32 bits (on ECP5 two DP16KD, ram_sdp_reg's 18-bit tiles); the
// rebuild writes the idle bank while the datapath reads the other. The rebuild walks v in
// Gray-code order, so each entry is the one before XOR one key window (8 windows per byte
// position, from a key copy shifted by a byte per position).

`default_nettype none

module rss_hash #(
    // Indirection table entries (a power of two, 1 .. 512); the hash's low log2 bits index it
    parameter int TABLE_ENTRIES = 128,
    // Queue number width (1 .. 16)
    parameter int QUEUE_W       = 8,
    // AXI4-Lite byte address width (12 .. 32; the map above fills 4 KiB)
    parameter int ADDR_W        = 12
) (
    input  wire logic               clk,
    input  wire logic               rst,

    // AXI4-Lite slave
    input  wire logic [ADDR_W-1:0]  s_axil_awaddr,
    input  wire logic [2:0]         s_axil_awprot,
    input  wire logic               s_axil_awvalid,
    output      logic               s_axil_awready,
    input  wire logic [31:0]        s_axil_wdata,
    input  wire logic [3:0]         s_axil_wstrb,
    input  wire logic               s_axil_wvalid,
    output      logic               s_axil_wready,
    output      logic [1:0]         s_axil_bresp,
    output      logic               s_axil_bvalid,
    input  wire logic               s_axil_bready,
    input  wire logic [ADDR_W-1:0]  s_axil_araddr,
    input  wire logic [2:0]         s_axil_arprot,
    input  wire logic               s_axil_arvalid,
    output      logic               s_axil_arready,
    output      logic [31:0]        s_axil_rdata,
    output      logic [1:0]         s_axil_rresp,
    output      logic               s_axil_rvalid,
    input  wire logic               s_axil_rready,

    // Tuple in: one per cycle, no backpressure
    input  wire logic               in_valid,
    input  wire logic               in_ipv4,
    input  wire logic               in_ipv6,
    input  wire logic               in_tcp,
    input  wire logic               in_udp,
    input  wire logic [127:0]       in_src,
    input  wire logic [127:0]       in_dst,
    input  wire logic [15:0]        in_sport,
    input  wire logic [15:0]        in_dport,

    // Result out: LATENCY cycles after the tuple
    output      logic               out_valid,
    output      logic [31:0]        out_hash,
    output      logic [2:0]         out_type,
    output      logic [QUEUE_W-1:0] out_queue
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (TABLE_ENTRIES < 1 || TABLE_ENTRIES > 512 ||
        (TABLE_ENTRIES & (TABLE_ENTRIES - 1)) != 0) begin : g_check_entries
        $error("rss_hash: TABLE_ENTRIES (%0d) must be a power of two, 1..512", TABLE_ENTRIES);
    end
    if (QUEUE_W < 1 || QUEUE_W > 16) begin : g_check_queue_w
        $error("rss_hash: QUEUE_W (%0d) must be 1..16", QUEUE_W);
    end
    if (ADDR_W < 12 || ADDR_W > 32) begin : g_check_addr_w
        $error("rss_hash: ADDR_W (%0d) must be 12..32", ADDR_W);
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam int LATENCY  = 10;
    localparam int NPOS     = 36;                 // input bytes: IPv6 src, dst, two ports
    localparam int NCHUNK   = 9;                  // symmetric compare: 144 bits / 16
    localparam int WA_W     = ADDR_W - 2;         // word address width
    localparam int IDX_W    = (TABLE_ENTRIES > 1) ? $clog2(TABLE_ENTRIES) : 1;
    localparam int REBUILD  = NPOS * 256;         // table entries a key load writes
    localparam logic [319:0] MS_KEY =
        320'h6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa;

    // Hash types
    localparam logic [2:0] T_NONE = 3'd0;
    localparam logic [2:0] T_IPV4 = 3'd1;
    localparam logic [2:0] T_TCP4 = 3'd2;
    localparam logic [2:0] T_UDP4 = 3'd3;
    localparam logic [2:0] T_IPV6 = 3'd4;
    localparam logic [2:0] T_TCP6 = 3'd5;
    localparam logic [2:0] T_UDP6 = 3'd6;

    // Word addresses
    localparam int A_CTRL     = 0;
    localparam int A_DEFQ     = 1;
    localparam int A_KEY_CTRL = 2;
    localparam int A_INFO     = 3;
    localparam int A_CNT_T    = 4;
    localparam int A_CNT_D    = 5;
    localparam int A_KEY      = 16;   // .. 25
    localparam int A_INDIR    = 512;  // .. 512 + TABLE_ENTRIES - 1

    function automatic logic [31:0] apply_strb(input logic [31:0] old, input logic [31:0] data,
                                               input logic [3:0] strb);
        logic [31:0] r;
        for (int b = 0; b < 4; b++) begin
            r[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        end
        apply_strb = r;
    endfunction

    function automatic logic is_key(input logic [WA_W-1:0] a);
        is_key = 32'(a) >= A_KEY && 32'(a) < A_KEY + 10;
    endfunction

    function automatic logic is_indir(input logic [WA_W-1:0] a);
        is_indir = 32'(a) >= A_INDIR && 32'(a) < A_INDIR + TABLE_ENTRIES;
    endfunction

    // The 36-byte hash input of a tuple, laid out by its type: IPv4 src, dst, sport, dport
    // in bytes 0..11 (the 2-tuple types have zero ports), IPv6 in bytes 0..35. Byte p is
    // bits [8*(35-p) +: 8] (byte 0 the most significant).
    function automatic logic [8*NPOS-1:0] layout(input logic v6, input logic [127:0] a,
                                                 input logic [127:0] b, input logic [15:0] pa,
                                                 input logic [15:0] pb);
        layout = v6 ? {a, b, pa, pb} : {a[31:0], b[31:0], pa, pb, 192'd0};
    endfunction

    // ------------------------------------------------------------------------------------
    // AXI4-Lite front end
    // ------------------------------------------------------------------------------------
    logic            wr_ready;
    logic            wr_req;
    logic [WA_W-1:0] wr_addr;
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_ack;
    logic            wr_err;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr;
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
    // Writes: answered in the wr_req cycle c0 (B in c0 + 1), the request registered and
    // performed at the end of c1
    // ------------------------------------------------------------------------------------
    logic [5:0]         en_q;
    logic               sym_q;
    logic [QUEUE_W-1:0] defq_q;
    logic [319:0]       key_q;       // staging key, KEY[0] in bits [319:288]
    logic [31:0]        cnt_t_q;
    logic [31:0]        cnt_d_q;
    logic               bank_q;      // the contribution-table bank in use (not reset)
    logic               busy;

    logic            wq_v;           // c1: the write
    logic [WA_W-1:0] wq_addr;        // data
    logic [31:0]     wq_data;        // data
    logic [3:0]      wq_strb;        // data
    logic            load_q;         // c2: a KEY_CTRL write that loads the key

    assign wr_ready = !rd_req;
    assign wr_ack   = wr_req;
    assign wr_err   = !(32'(wr_addr) <= A_KEY_CTRL || is_key(wr_addr) || is_indir(wr_addr));

    always_ff @(posedge clk) begin
        if (rst) begin
            wq_v   <= 1'b0;
            load_q <= 1'b0;
        end else begin
            wq_v   <= wr_req;
            load_q <= wq_v && 32'(wq_addr) == A_KEY_CTRL && wq_strb[0] && wq_data[0];
        end
    end

    always_ff @(posedge clk) begin
        wq_addr <= wr_addr;
        wq_data <= wr_data;
        wq_strb <= wr_strb;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            en_q   <= 6'h3F;
            sym_q  <= 1'b0;
            defq_q <= '0;
            key_q  <= MS_KEY;
        end else if (wq_v) begin
            if (32'(wq_addr) == A_CTRL) begin
                if (wq_strb[0]) en_q  <= wq_data[5:0];
                if (wq_strb[1]) sym_q <= wq_data[8];
            end
            if (32'(wq_addr) == A_DEFQ) begin
                defq_q <= QUEUE_W'(apply_strb(32'(defq_q), wq_data, wq_strb));
            end
            for (int i = 0; i < 10; i++) begin
                if (32'(wq_addr) == A_KEY + i) begin
                    key_q[319 - 32*i -: 32] <= apply_strb(key_q[319 - 32*i -: 32], wq_data,
                                                          wq_strb);
                end
            end
        end
    end

    // ------------------------------------------------------------------------------------
    // Reads: c0 address registered; c1 decode, a key word and a register word selected;
    // c2 one of them (port B reads INDIR); c3 registered; c4 rd_ack (R in c4 + 1)
    // ------------------------------------------------------------------------------------
    logic [3:0]         rd_p_q;      // rd_p_q[k]: the read is in cycle c(k+1)
    logic [WA_W-1:0]    rd_wa_q;     // data: the word address (c1)
    logic [31:0]        rd_key_q;    // data (c2)
    logic [31:0]        rd_reg_q;    // data
    logic               rd_iskey_q;  // data
    logic               rd_isreg_q;  // data
    logic               rd_tab_q;    // data: an INDIR read
    logic [31:0]        rd_mux_q;    // data (c3)
    logic               rd_err_q;    // data
    logic               rd_tab2_q;   // data
    logic [31:0]        rd_mux2_q;   // data (c4)
    logic               rd_err2_q;   // data
    logic               rd_tab3_q;   // data
    logic [QUEUE_W-1:0] tb_rd;       // indirection table, port B word (c4: ram_tdp_reg)

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_p_q <= '0;
        end else begin
            rd_p_q <= {rd_p_q[2:0], rd_req};
        end
    end

    always_ff @(posedge clk) begin
        if (rd_req) rd_wa_q <= rd_addr;
        // c1 (KEY[i] is word 16 + i: i = the address's low 4 bits)
        rd_iskey_q <= is_key(rd_wa_q);
        rd_isreg_q <= 32'(rd_wa_q) <= A_CNT_D;
        rd_tab_q   <= is_indir(rd_wa_q);
        rd_key_q   <= '0;
        for (int i = 0; i < 10; i++) begin
            if (rd_wa_q[3:0] == 4'(i)) rd_key_q <= key_q[319 - 32*i -: 32];
        end
        case (rd_wa_q[2:0])
            3'(A_CTRL):     rd_reg_q <= {23'd0, sym_q, 2'd0, en_q};
            3'(A_DEFQ):     rd_reg_q <= 32'(defq_q);
            3'(A_KEY_CTRL): rd_reg_q <= {30'd0, bank_q, busy};
            3'(A_INFO):     rd_reg_q <= {8'(LATENCY), 3'd0, 5'(QUEUE_W), 6'd0,
                                         10'(TABLE_ENTRIES)};
            3'(A_CNT_T):    rd_reg_q <= cnt_t_q;
            3'(A_CNT_D):    rd_reg_q <= cnt_d_q;
            default:        rd_reg_q <= '0;
        endcase
        // c2
        rd_mux_q  <= rd_iskey_q ? rd_key_q : rd_isreg_q ? rd_reg_q : 32'd0;
        rd_err_q  <= !(rd_iskey_q || rd_isreg_q || rd_tab_q);
        rd_tab2_q <= rd_tab_q;
        // c3
        rd_mux2_q <= rd_mux_q;
        rd_err2_q <= rd_err_q;
        rd_tab3_q <= rd_tab2_q;
    end

    // c4: the answer
    assign rd_ack  = rd_p_q[3];
    assign rd_data = rd_tab3_q ? 32'(tb_rd) : rd_mux2_q;
    assign rd_err  = rd_err2_q;

    // ------------------------------------------------------------------------------------
    // Indirection table port B: a write's or a read's command in c1, the RAM in c2 (port B
    // reads whenever it does not write; wr_ready keeps a write's wr_req out of a read's rd_req
    // cycle, so they never meet), a read's word in its output register in c3
    // ------------------------------------------------------------------------------------
    logic               tb_we_q;
    logic [IDX_W-1:0]   tb_addr_q;   // data
    logic [QUEUE_W-1:0] tb_wdata_q;  // data

    always_ff @(posedge clk) begin
        if (rst) begin
            tb_we_q <= 1'b0;
        end else begin
            tb_we_q <= wq_v && is_indir(wq_addr) && wq_strb[0] && (QUEUE_W <= 8 || wq_strb[1]);
        end
    end

    always_ff @(posedge clk) begin
        if (wq_v) begin
            tb_addr_q  <= IDX_W'(wq_addr & WA_W'(TABLE_ENTRIES - 1));
            tb_wdata_q <= QUEUE_W'(wq_data);
        end else if (rd_p_q[0]) begin
            tb_addr_q  <= IDX_W'(rd_wa_q & WA_W'(TABLE_ENTRIES - 1));
        end
    end

    // ------------------------------------------------------------------------------------
    // Key rebuild: every entry of the idle bank's 36 contribution tables, then BANK flips
    // ------------------------------------------------------------------------------------
    logic               run_q;
    logic [13:0]        cnt_q;      // position (13:8) and Gray index (7:0) of the next entry
    logic [319:0]       sh_q;       // the key shifted left by 8 bits per finished position
    // r1: the entry's address, the window to add, the table it belongs to
    logic               r1_v;
    logic               r1_last;
    logic               r1_first;   // Gray index 0: the entry is 0
    logic [7:0]         r1_addr;    // data
    logic [2:0]         r1_j;       // data: the MSB-first bit of the byte that flips
    logic [NPOS-1:0]    r1_pos;     // data: one-hot table
    // r2: the write
    logic               r2_v;
    logic               r2_last;
    logic [NPOS-1:0]    r2_we;
    logic [8:0]         r2_addr;    // data
    logic [31:0]        acc_q;      // data: the entry written

    logic [7:0]         k_idx;
    logic               load;       // start (or restart) a rebuild
    logic               shift_q;    // the next entry starts a position: shift sh_q
    assign k_idx = cnt_q[7:0];
    assign load  = load_q;
    assign busy  = run_q || r1_v || r2_v;

    // The bit of the byte that flips from Gray code k-1 to k (k > 0), MSB-first numbering
    function automatic logic [2:0] flip_bit(input logic [7:0] k);
        logic [2:0] j;
        j = 3'd0;
        for (int b = 7; b >= 0; b--) begin
            if (k[b]) j = 3'(7 - b);
        end
        flip_bit = j;
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            run_q <= 1'b1;
            cnt_q <= '0;
            r1_v  <= 1'b0;
            r2_v  <= 1'b0;
        end else if (load) begin
            run_q <= 1'b1;
            cnt_q <= '0;
            r1_v  <= 1'b0;
            r2_v  <= 1'b0;
        end else begin
            r1_v <= run_q;
            r2_v <= r1_v;
            if (run_q) begin
                cnt_q <= cnt_q + 14'd1;
                if (32'(cnt_q) == REBUILD - 1) run_q <= 1'b0;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst || load) begin
            r1_last <= 1'b0;
            r2_last <= 1'b0;
            r2_we   <= '0;
        end else begin
            r1_last <= run_q && 32'(cnt_q) == REBUILD - 1;
            r2_last <= r1_v && r1_last;
            r2_we   <= r1_v ? r1_pos : '0;
        end
    end

    // Not reset: the bank in use stays in use until a rebuild has written the other one
    initial bank_q = 1'b0;

    always_ff @(posedge clk) begin
        if (!rst && r2_last) bank_q <= !bank_q;
    end

    always_ff @(posedge clk) begin
        if (rst || load) begin
            shift_q <= 1'b0;
        end else begin
            shift_q <= run_q && k_idx == 8'hFF && 32'(cnt_q) != REBUILD - 1;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            sh_q <= MS_KEY;
        end else if (load) begin
            sh_q <= key_q;
        end else if (shift_q) begin
            sh_q <= sh_q << 8;
        end
    end

    always_ff @(posedge clk) begin
        r1_first <= k_idx == 8'd0;
        r1_addr  <= k_idx ^ (k_idx >> 1);
        r1_j     <= flip_bit(k_idx);
        for (int p = 0; p < NPOS; p++) begin
            r1_pos[p] <= cnt_q[13:8] == 6'(p);
        end
        // window K[8p + j .. 8p + j + 31] of the key = sh_q bits 319-j down to 288-j
        acc_q   <= r1_first ? 32'd0 : acc_q ^ sh_q[288 - 32'(r1_j) +: 32];
        r2_addr <= {!bank_q, r1_addr};
    end

    // ------------------------------------------------------------------------------------
    // t: hash type, masks (registers S1)
    // ------------------------------------------------------------------------------------
    logic         f_v4;
    logic         f_v6;
    logic         f_tcp;
    logic         f_udp;
    logic [2:0]   in_type;
    logic         in_ports;   // the type hashes the ports

    assign f_v4  = in_ipv4 && !in_ipv6;
    assign f_v6  = in_ipv6 && !in_ipv4;
    assign f_tcp = in_tcp && !in_udp;
    assign f_udp = in_udp && !in_tcp;

    always_comb begin
        in_type = T_NONE;
        if (f_v4) begin
            if (f_tcp && en_q[1])      in_type = T_TCP4;
            else if (f_udp && en_q[2]) in_type = T_UDP4;
            else if (en_q[0])          in_type = T_IPV4;
        end else if (f_v6) begin
            if (f_tcp && en_q[4])      in_type = T_TCP6;
            else if (f_udp && en_q[5]) in_type = T_UDP6;
            else if (en_q[3])          in_type = T_IPV6;
        end
    end
    assign in_ports = in_type == T_TCP4 || in_type == T_UDP4 || in_type == T_TCP6
                   || in_type == T_UDP6;

    logic         s1_v;
    logic [2:0]   s1_type;
    logic         s1_sym;
    logic [127:0] s1_src;    // data
    logic [127:0] s1_dst;    // data
    logic [15:0]  s1_sport;  // data
    logic [15:0]  s1_dport;  // data

    always_ff @(posedge clk) begin
        if (rst) begin
            s1_v <= 1'b0;
        end else begin
            s1_v <= in_valid;
        end
    end

    always_ff @(posedge clk) begin
        s1_type  <= in_type;
        s1_sym   <= sym_q;
        s1_src   <= {f_v6 ? in_src[127:32] : 96'd0, in_src[31:0]};
        s1_dst   <= {f_v6 ? in_dst[127:32] : 96'd0, in_dst[31:0]};
        s1_sport <= in_ports ? in_sport : 16'd0;
        s1_dport <= in_ports ? in_dport : 16'd0;
    end

    // ------------------------------------------------------------------------------------
    // t+1: chunk compares, both layouts (S2)
    // ------------------------------------------------------------------------------------
    logic [143:0]      s1_a;
    logic [143:0]      s1_b;
    assign s1_a = {s1_src, s1_sport};
    assign s1_b = {s1_dst, s1_dport};

    logic              s2_v;
    logic [2:0]        s2_type;
    logic              s2_sym;
    logic [NCHUNK-1:0] s2_gt;    // data: chunk c of a > chunk c of b
    logic [NCHUNK-1:0] s2_eq;    // data
    logic [8*NPOS-1:0] s2_fwd;   // data: the input, src pair first
    logic [8*NPOS-1:0] s2_rev;   // data: the input, dst pair first

    always_ff @(posedge clk) begin
        if (rst) begin
            s2_v <= 1'b0;
        end else begin
            s2_v <= s1_v;
        end
    end

    always_ff @(posedge clk) begin
        s2_type <= s1_type;
        s2_sym  <= s1_sym;
        for (int c = 0; c < NCHUNK; c++) begin
            s2_gt[c] <= s1_a[16*c +: 16] > s1_b[16*c +: 16];
            s2_eq[c] <= s1_a[16*c +: 16] == s1_b[16*c +: 16];
        end
        s2_fwd <= layout(s1_type[2], s1_src, s1_dst, s1_sport, s1_dport);
        s2_rev <= layout(s1_type[2], s1_dst, s1_src, s1_dport, s1_sport);
    end

    // ------------------------------------------------------------------------------------
    // t+2: the chunks combined: swap (S3)
    // ------------------------------------------------------------------------------------
    logic              s2_agtb;  // {src, sport} > {dst, dport}

    always_comb begin
        s2_agtb = 1'b0;
        for (int c = 0; c < NCHUNK; c++) begin
            s2_agtb = s2_gt[c] || (s2_eq[c] && s2_agtb);
        end
    end

    logic              s3_v;
    logic [2:0]        s3_type;
    logic              s3_swap;  // data
    logic [8*NPOS-1:0] s3_fwd;   // data
    logic [8*NPOS-1:0] s3_rev;   // data

    always_ff @(posedge clk) begin
        if (rst) begin
            s3_v <= 1'b0;
        end else begin
            s3_v <= s2_v;
        end
    end

    always_ff @(posedge clk) begin
        s3_type <= s2_type;
        s3_swap <= s2_sym && s2_agtb;
        s3_fwd  <= s2_fwd;
        s3_rev  <= s2_rev;
    end

    // ------------------------------------------------------------------------------------
    // t+3: the input taken one way or the other addresses the contribution tables (with the
    // bank in use); t+4: their words into the RAMs' output registers
    // ------------------------------------------------------------------------------------
    logic [8*NPOS-1:0] s3_in;
    assign s3_in = s3_swap ? s3_rev : s3_fwd;

    // The tables' words (t+5) leave through the block RAMs' own output registers (ram_sdp_reg:
    // the read at the end of t+3, the output register at the end of t+4), whose clock-to-output
    // is short enough for the route across the die to a plain register (c6_q, t+6), where
    // the XOR starts.
    logic [NPOS-1:0][31:0] c_rd;   // the RAMs' output registers (t+5)
    logic [NPOS-1:0][31:0] c6_q;   // data (t+6)

    for (genvar p = 0; p < NPOS; p++) begin : g_pos
        // A write (the idle bank) never addresses the word a read (the bank in use) reads.
        // All-zero contents at configuration.
        ram_sdp_reg #(
            .ADDR_W (9),
            .DATA_W (32)
        ) u_ctab (
            .clk   (clk),
            .we    (r2_we[p]),
            .waddr (r2_addr),
            .wdata (acc_q),
            .raddr ({bank_q, s3_in[8*(NPOS-1-p) +: 8]}),
            .rdata (c_rd[p])
        );
    end

    logic       v4_q;
    logic       v5_q;
    logic       v6_q;
    logic       v7_q;
    logic       v8_q;
    logic       v9_q;
    logic [2:0] t4_q;
    logic [2:0] t5_q;
    logic [2:0] t6_q;
    logic [2:0] t7_q;
    logic [2:0] t8_q;
    logic [2:0] t9_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            {v4_q, v5_q, v6_q, v7_q, v8_q, v9_q} <= '0;
        end else begin
            {v4_q, v5_q, v6_q, v7_q, v8_q, v9_q} <= {s3_v, v4_q, v5_q, v6_q, v7_q, v8_q};
        end
    end

    always_ff @(posedge clk) begin
        {t4_q, t5_q, t6_q, t7_q, t8_q, t9_q} <= {s3_type, t4_q, t5_q, t6_q, t7_q, t8_q};
        c6_q <= c_rd;
    end

    // ------------------------------------------------------------------------------------
    // t+6: the XOR of the 36 words (three LUT levels): the hash
    // ------------------------------------------------------------------------------------
    logic [31:0] h7_q;   // data: the hash (t+7)
    logic [31:0] h8_q;   // data
    logic [31:0] h9_q;   // data

    always_ff @(posedge clk) begin
        logic [31:0] x;
        x = '0;
        for (int p = 0; p < NPOS; p++) x ^= c6_q[p];
        h7_q <= x;
        h8_q <= h7_q;
        h9_q <= h8_q;
    end

    // ------------------------------------------------------------------------------------
    // t+7: the indirection table read (port A); t+8 its word into the block RAM's output
    // register (ram_tdp_reg), no logic; t+9 the output registers. Port B: the AXI side's
    // writes and reads (a read's word in c4)
    // ------------------------------------------------------------------------------------
    logic [IDX_W-1:0]   ia;
    logic [QUEUE_W-1:0] ia_rd;      // port A word (t+9)
    logic               coll;       // port B writes the word port A reads this cycle
    logic               coll8_q;    // data
    logic [QUEUE_W-1:0] wd8_q;      // data: the word port B wrote
    logic               coll9_q;    // data
    logic [QUEUE_W-1:0] wd9_q;      // data

    assign ia   = IDX_W'(h7_q & 32'(TABLE_ENTRIES - 1));
    assign coll = tb_we_q && tb_addr_q == ia;

    ram_tdp_reg #(
        .ADDR_W   (IDX_W),
        .DATA_W   (QUEUE_W),
        .A_OUTREG (1'b1)
    ) u_itab (
        .clk     (clk),
        .addr_a  (ia),
        .rdata_a (ia_rd),
        .we_b    (tb_we_q),
        .addr_b  (tb_addr_q),
        .wdata_b (tb_wdata_q),
        .rdata_b (tb_rd)
    );

    always_ff @(posedge clk) begin
        coll8_q <= coll;
        wd8_q   <= tb_wdata_q;
        coll9_q <= coll8_q;
        wd9_q   <= wd8_q;
    end

    // Outputs (t+10) and counters
    always_ff @(posedge clk) begin
        if (rst) begin
            out_valid <= 1'b0;
        end else begin
            out_valid <= v9_q;
        end
    end

    always_ff @(posedge clk) begin
        out_type  <= t9_q;
        out_hash  <= (t9_q == T_NONE) ? 32'd0 : h9_q;
        out_queue <= (t9_q == T_NONE) ? defq_q : coll9_q ? wd9_q : ia_rd;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            cnt_t_q <= '0;
            cnt_d_q <= '0;
        end else if (out_valid) begin
            cnt_t_q <= cnt_t_q + 32'd1;
            if (out_type == T_NONE) cnt_d_q <= cnt_d_q + 32'd1;
        end
    end

endmodule

`default_nettype wire
