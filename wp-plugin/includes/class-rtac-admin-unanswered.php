<?php
/**
 * The unanswered-questions report (menu slug `rtac-unanswered`): the list
 * (all languages or one), "Add to knowledge base" (for a listed question, or
 * for an unanswered turn of a conversation in the log), "Dismiss", bulk
 * dismiss and the CSV export. The questions and their status are the
 * sidecar's, read and changed through Rtac_Unanswered_Report.
 *
 * Every action runs capability → nonce → wp_unslash → act → wp_safe_redirect
 * with a message code.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Admin_Unanswered {

	const PAGE           = 'rtac-unanswered';
	const DISMISS_ACTION = 'rtac_unanswered_dismiss';
	const ANSWER_ACTION  = 'rtac_unanswered_answer';
	const CSV_ACTION     = 'rtac_unanswered_csv';

	private Rtac_Settings $settings;
	private Rtac_Unanswered_Report $report;
	private ?Rtac_Client $client;

	/** $client reads the conversation an answer is written for; the questions come from $report. */
	public function __construct( Rtac_Settings $settings, Rtac_Unanswered_Report $report, ?Rtac_Client $client = null ) {
		$this->settings = $settings;
		$this->report   = $report;
		$this->client   = $client;
	}

	public function render(): void {
		Rtac_Capability::require_manage();
		echo '<div class="wrap"><h1 class="wp-heading-inline">' . esc_html__( 'Unanswered questions', 'rtac' ) . '</h1>';
		Rtac_Admin::render_notice();
		echo '<p>' . esc_html__( 'Questions visitors asked that your site could not answer. Each one is a piece of content worth writing: add an answer and the assistant will use it from then on.', 'rtac' ) . '</p>';

		$lang  = self::requested_lang();
		$items = $this->report->fetch( $lang );
		if ( is_wp_error( $items ) ) {
			Rtac_Admin::render_unreachable( $items );
			echo '</div>';
			return;
		}

		// phpcs:disable WordPress.Security.NonceVerification.Recommended -- these open a form only
		$answer_id    = isset( $_GET['answer'] ) ? absint( $_GET['answer'] ) : 0;
		$conversation = Rtac_Admin_Conversations::query_arg( 'conversation' ); // Validated by valid_id() before use.
		$turn         = isset( $_GET['turn'] ) ? absint( $_GET['turn'] ) : 0;
		// phpcs:enable
		foreach ( $items as $item ) {
			if ( $answer_id && (int) ( $item['id'] ?? 0 ) === $answer_id ) {
				$this->render_answer_form( $item );
			}
		}
		if ( '' !== $conversation && $turn > 0 ) {
			$this->render_answer_for_turn( $conversation, $turn, $items );
		}

		$this->render_language_filter( $lang, $items );
		$table = new Rtac_Unanswered_Table();
		$table->set_language( $lang );
		$table->set_rows( $items );
		$table->prepare_items();
		echo '<form method="post" action="' . esc_url( Rtac_Admin::page_url( self::PAGE ) ) . '">';
		$table->display();
		echo '</form>';

		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '" class="rtac-export">';
		echo '<input type="hidden" name="action" value="' . esc_attr( self::CSV_ACTION ) . '" />';
		echo '<input type="hidden" name="lang" value="' . esc_attr( $lang ) . '" />';
		// Own names: the table's bulk form already has a #_wpnonce.
		wp_nonce_field( self::CSV_ACTION, 'rtac_csv_nonce' );
		submit_button( __( 'Export as CSV', 'rtac' ), 'secondary', 'rtac-export', false );
		echo '</form></div>';
	}

	/** The `lang` of the report's URL: one language's questions, or '' for all. */
	private static function requested_lang(): string {
		return isset( $_GET['lang'] ) ? Rtac_Language::normalize( sanitize_text_field( wp_unslash( $_GET['lang'] ) ) ) : ''; // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- a filter of a read-only list
	}

	private function render_language_filter( string $lang, array $items ): void {
		$langs = Rtac_Language::available();
		foreach ( $items as $item ) {
			$langs[] = Rtac_Language::normalize( (string) ( $item['lang'] ?? '' ) );
		}
		$langs[] = $lang;
		$langs   = array_values( array_unique( array_filter( $langs ) ) );
		sort( $langs );
		echo '<form method="get" action="' . esc_url( admin_url( 'admin.php' ) ) . '" class="rtac-filters">';
		echo '<input type="hidden" name="page" value="' . esc_attr( self::PAGE ) . '" />';
		echo '<label for="rtac-unanswered-lang">' . esc_html__( 'Language', 'rtac' ) . '</label> ';
		echo '<select id="rtac-unanswered-lang" name="lang"><option value="">' . esc_html__( 'All languages', 'rtac' ) . '</option>';
		foreach ( $langs as $code ) {
			echo '<option value="' . esc_attr( $code ) . '"' . selected( $lang, $code, false ) . '>' . esc_html( $code ) . '</option>';
		}
		echo '</select> <input type="submit" class="button" value="' . esc_attr__( 'Filter', 'rtac' ) . '" /></form>';
	}

	/**
	 * "Add to knowledge base" from an unanswered turn of the conversation log: the
	 * form filled with what the customer asked, tied to the open question it
	 * was recorded as (so it is resolved too) when there is one.
	 */
	private function render_answer_for_turn( string $conversation_id, int $seq, array $items ): void {
		if ( ! Rtac_Admin_Conversations::valid_id( $conversation_id ) || ! current_user_can( Rtac_Registry::CAP_VIEW_CONVERSATION, $conversation_id ) ) {
			return;
		}
		$conversation = Rtac_Admin_Conversations::request_conversation( $this->client(), $conversation_id );
		$question     = '';
		if ( ! is_wp_error( $conversation ) ) {
			foreach ( $conversation['turns'] as $turn ) {
				if ( (int) ( $turn['seq'] ?? 0 ) === $seq ) {
					$question = trim( (string) ( $turn['message'] ?? '' ) );
				}
			}
		}
		if ( '' === $question ) {
			echo '<div class="notice notice-warning inline"><p>' . esc_html__( 'The question of that conversation could not be loaded: the conversation may have expired or been erased, or the assistant service did not answer.', 'rtac' ) . '</p></div>';
			return;
		}
		$lang = Rtac_Language::normalize( (string) ( $conversation['lang'] ?? '' ) );
		$this->render_answer_form(
			array(
				'id'       => Rtac_Unanswered_Report::matching_question( $items, $question, $lang ),
				'question' => $question,
				'lang'     => $lang,
			)
		);
	}

	private function render_answer_form( array $item ): void {
		$id    = (int) $item['id'];
		$lang  = Rtac_Language::normalize( (string) ( $item['lang'] ?? '' ) );
		$langs = Rtac_Language::available();
		if ( '' !== $lang && ! in_array( $lang, $langs, true ) ) {
			$langs[] = $lang;
		}
		echo '<div class="card rtac-answer" id="rtac-answer"><h2>' . esc_html__( 'Add to the knowledge base', 'rtac' ) . '</h2>';
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		echo '<input type="hidden" name="action" value="' . esc_attr( self::ANSWER_ACTION ) . '" />';
		echo '<input type="hidden" name="id" value="' . esc_attr( (string) $id ) . '" />';
		wp_nonce_field( self::ANSWER_ACTION, 'rtac_answer_nonce' );
		echo '<p><label for="rtac-answer-question">' . esc_html__( 'Question', 'rtac' ) . '</label><br />';
		echo '<input type="text" id="rtac-answer-question" name="question" class="large-text" value="' . esc_attr( (string) ( $item['question'] ?? '' ) ) . '" /></p>';
		echo '<p><label for="rtac-answer-text">' . esc_html__( 'Answer', 'rtac' ) . '</label><br />';
		echo '<textarea id="rtac-answer-text" name="answer" rows="6" class="large-text" required></textarea></p>';
		echo '<p><label for="rtac-answer-lang">' . esc_html__( 'Language', 'rtac' ) . '</label> <select id="rtac-answer-lang" name="lang">';
		foreach ( $langs as $code ) {
			echo '<option value="' . esc_attr( $code ) . '"' . selected( $lang, $code, false ) . '>' . esc_html( $code ) . '</option>';
		}
		echo '</select> <label><input type="checkbox" name="pinned" value="1" /> ' . esc_html__( 'Pinned: send with every answer in this language', 'rtac' ) . '</label></p>';
		submit_button( __( 'Add answer and resolve', 'rtac' ), 'primary', 'rtac-answer-submit', false );
		echo ' <a class="button-link" href="' . esc_url( Rtac_Admin::page_url( self::PAGE ) ) . '">' . esc_html__( 'Cancel', 'rtac' ) . '</a>';
		echo '</form></div>';
	}

	/** load-{page}: the bulk "Dismiss", before any output so it can redirect. */
	public function on_load(): void {
		// phpcs:disable WordPress.Security.NonceVerification.Missing -- only picks the branch; verified below
		$action = isset( $_POST['action'] ) ? sanitize_key( wp_unslash( $_POST['action'] ) ) : '-1';
		if ( '-1' === $action || '' === $action ) {
			$action = isset( $_POST['action2'] ) ? sanitize_key( wp_unslash( $_POST['action2'] ) ) : '';
		}
		// phpcs:enable
		if ( 'dismiss' !== $action ) {
			return;
		}
		Rtac_Capability::require_manage();
		check_admin_referer( 'bulk-rtac-questions' );
		$ids = isset( $_POST['ids'] ) ? array_filter( array_map( 'absint', (array) wp_unslash( $_POST['ids'] ) ) ) : array();
		if ( ! $ids ) {
			self::redirect( array( 'rtac_msg' => 'nothing_selected' ) );
		}
		$done = 0;
		foreach ( $ids as $id ) {
			$done += $this->report->set_status( $id, 'dismissed' ) ? 1 : 0;
		}
		self::redirect(
			$done > 0 ? array(
				'rtac_msg' => 'dismissed',
				'rtac_n'   => $done,
			) : array( 'rtac_msg' => 'dismiss_failed' )
		);
	}

	/** admin-post.php?action=rtac_unanswered_dismiss&id=N&_wpnonce=... */
	public function handle_dismiss(): void {
		Rtac_Capability::require_manage();
		$id = isset( $_GET['id'] ) ? absint( $_GET['id'] ) : 0; // The nonce action names the id.
		check_admin_referer( self::DISMISS_ACTION . '_' . $id );
		if ( $id && $this->report->set_status( $id, 'dismissed' ) ) {
			self::redirect(
				array(
					'rtac_msg' => 'dismissed',
					'rtac_n'   => 1,
				)
			);
		}
		self::redirect( array( 'rtac_msg' => 'dismiss_failed' ) );
	}

	/** admin-post.php, action rtac_unanswered_answer: creates the KB entry, then resolves. */
	public function handle_answer(): void {
		Rtac_Capability::require_manage();
		check_admin_referer( self::ANSWER_ACTION, 'rtac_answer_nonce' );
		$id       = isset( $_POST['id'] ) ? absint( wp_unslash( $_POST['id'] ) ) : 0;
		$question = isset( $_POST['question'] ) ? sanitize_text_field( wp_unslash( $_POST['question'] ) ) : '';
		$answer   = isset( $_POST['answer'] ) ? wp_kses_post( wp_unslash( $_POST['answer'] ) ) : '';
		$lang     = isset( $_POST['lang'] ) ? Rtac_Language::normalize( sanitize_text_field( wp_unslash( $_POST['lang'] ) ) ) : '';
		$pinned   = ! empty( $_POST['pinned'] );

		if ( '' === trim( $answer ) || '' === $question ) {
			self::redirect(
				array(
					'rtac_msg' => 'answer_empty',
					'answer'   => $id,
				)
			);
		}
		$post_id = Rtac_Knowledge_Base::create_entry( $question, $answer, $lang, $pinned );
		if ( is_wp_error( $post_id ) || ! $post_id ) {
			self::redirect( array( 'rtac_msg' => 'kb_failed' ) );
		}
		if ( 0 === $id ) {
			// From a conversation whose question is no longer open: nothing to resolve.
			self::redirect( array( 'rtac_msg' => 'kb_added_only' ) );
		}
		$resolved = $this->report->set_status( $id, 'resolved' );
		self::redirect( array( 'rtac_msg' => $resolved ? 'kb_added' : 'kb_added_open' ) );
	}

	/** admin-post.php, action rtac_unanswered_csv. */
	public function handle_csv(): void {
		Rtac_Capability::require_manage();
		check_admin_referer( self::CSV_ACTION, 'rtac_csv_nonce' );
		$lang  = isset( $_POST['lang'] ) ? sanitize_text_field( wp_unslash( $_POST['lang'] ) ) : '';
		$items = $this->report->fetch( $lang );
		if ( is_wp_error( $items ) ) {
			wp_die( esc_html__( 'The assistant service could not be reached, so there is nothing to export right now. Please try again later.', 'rtac' ), esc_html__( 'Export failed', 'rtac' ), array( 'response' => 502, 'back_link' => true ) );
		}
		$csv = Rtac_Csv::build( Rtac_Unanswered_Report::csv_rows( $items ) );
		nocache_headers();
		header( 'Content-Type: text/csv; charset=utf-8' );
		header( 'Content-Disposition: attachment; filename="rtac-unanswered-' . gmdate( 'Y-m-d' ) . '.csv"' );
		header( 'X-Content-Type-Options: nosniff' );
		header( 'Content-Length: ' . strlen( $csv ) );
		echo $csv; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- a CSV download, cells neutralised by Rtac_Csv
		exit;
	}

	/** @return never */
	private static function redirect( array $args ): void {
		wp_safe_redirect( Rtac_Admin::page_url( self::PAGE, $args ) );
		exit;
	}

	private function client(): Rtac_Client {
		return $this->client ?? Rtac_Client::from_settings( $this->settings );
	}
}
